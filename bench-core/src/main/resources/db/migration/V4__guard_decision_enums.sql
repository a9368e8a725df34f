-- Guard decisions became one message with enum stage and verdict (healbench.guard.v1.GuardDecision): an event stored
-- before then keeps its stage and verdict as lower-case words, which the enum's JSON form spells in upper case. The
-- guard_* columns keep the lower-case words and need nothing.
update bench_attempt_event
set payload = jsonb_set(payload::jsonb, '{guardDecision,stage}', to_jsonb(upper(payload::jsonb #>> '{guardDecision,stage}')))::text
where kind = 'guard_decision' and payload::jsonb #>> '{guardDecision,stage}' is not null;

update bench_attempt_event
set payload = jsonb_set(payload::jsonb, '{guardDecision,verdict}', to_jsonb(upper(payload::jsonb #>> '{guardDecision,verdict}')))::text
where kind = 'guard_decision' and payload::jsonb #>> '{guardDecision,verdict}' is not null;
