-- Agent pools: each run names the pool whose work queue takes its attempts; runs from before pools went to the one
-- queue there was, the default pool's.
alter table bench_run add column agent_pool varchar(40) default 'default' not null;
