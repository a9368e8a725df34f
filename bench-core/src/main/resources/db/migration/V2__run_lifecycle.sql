-- Runs that can be listed, cancelled, deleted and re-graded; one outcome class per attempt.

-- The run's seed (the bootstrap's, and what the agents derive theirs from), fixed at creation.
alter table bench_run add column seed bigint default 0 not null;
-- ListRuns pages a tenant's runs newest first.
create index bench_run_tenant_created on bench_run (tenant, create_time desc, id desc);

-- healed, not_healed, reraised, agent_error, budget, infrastructure or grader; null until the attempt ends.
alter table bench_attempt add column outcome_class varchar(32);

-- Re-grading reads a run's stored events; deleting a run removes them.
create index bench_attempt_event_run on bench_attempt_event (tenant, run_id);
create index bench_trajectory_run on bench_trajectory (tenant, run_id);
