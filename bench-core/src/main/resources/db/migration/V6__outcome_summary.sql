-- An attempt's counters became one message with an enum exit cause (healbench.outcome.v1.OutcomeSummary), and its
-- failure class an enum: a completion event stored before then keeps them as fields of `completed`, in lower-case
-- words, and healrt's harness errors as `error: <exception>`. They move into `completed.summary`, in the enums' JSON
-- spelling; a cause this build does not know becomes ERROR, as the sandbox now reads one from the runtime. The text of
-- a harness error moves to the front of the detail, where healrt now puts it.
update bench_attempt_event
set payload = jsonb_set(payload::jsonb, '{completed,detail}', to_jsonb(
        'the test runner raised ' || substr(payload::jsonb #>> '{completed,exitCause}', 8)
        || coalesce('; ' || nullif(payload::jsonb #>> '{completed,detail}', ''), '')))::text
where kind = 'completed' and payload::jsonb #>> '{completed,exitCause}' like 'error: %';

update bench_attempt_event
set payload = jsonb_set(
        payload::jsonb,
        '{completed}',
        ((payload::jsonb -> 'completed') - 'proceeded' - 'passed' - 'healPoints' - 'healsApplied' - 'healsRejected'
            - 'exitCause' - 'wallTimeMs' - 'failureClass')
        || jsonb_strip_nulls(jsonb_build_object(
            'summary', jsonb_strip_nulls(jsonb_build_object(
                'proceeded', payload::jsonb #> '{completed,proceeded}',
                'passed', payload::jsonb #> '{completed,passed}',
                'healPoints', payload::jsonb #> '{completed,healPoints}',
                'healsApplied', payload::jsonb #> '{completed,healsApplied}',
                'healsRejected', payload::jsonb #> '{completed,healsRejected}',
                'exitCause', case
                    when coalesce(payload::jsonb #>> '{completed,exitCause}', '') = '' then null
                    when payload::jsonb #>> '{completed,exitCause}'
                        in ('exited', 'signal', 'limit', 'timeout', 'killed', 'not_started')
                        then upper(payload::jsonb #>> '{completed,exitCause}')
                    else 'ERROR' end,
                'wallTimeMs', payload::jsonb #> '{completed,wallTimeMs}')),
            'failureClass', upper(payload::jsonb #>> '{completed,failureClass}'))))::text
where kind = 'completed' and payload::jsonb ? 'completed' and not (payload::jsonb -> 'completed') ? 'summary';

-- The columns keep the lower-case words; a harness error's text leaves the cause for the detail, as above.
update bench_attempt
set detail = 'the test runner raised ' || substr(exit_cause, 8) || coalesce('; ' || nullif(detail, ''), ''), exit_cause = 'error'
where exit_cause like 'error: %';
update bench_attempt set exit_cause = null where exit_cause = '';
update bench_attempt set exit_cause = 'error'
where exit_cause not in ('exited', 'signal', 'limit', 'timeout', 'killed', 'error', 'not_started');

-- A heal's resume mode became an enum too (healbench.sandbox.v1.ResumeMode) in the events that report applied heals.
update bench_attempt_event
set payload = jsonb_set(payload::jsonb, '{healApplied,resume}', to_jsonb(upper(payload::jsonb #>> '{healApplied,resume}')))::text
where kind = 'heal_applied' and payload::jsonb #>> '{healApplied,resume}' in ('skip', 'retry', 'return');
