-- Nothing lost when a part dies: attempt messages leave through an outbox written with the attempts, and each
-- attempt counts the sessions that started it (a delivery limit for attempts that keep being started again).

create table bench_outbox (
    attempt_id varchar(255) not null primary key,
    tenant varchar(255) not null,
    run_id varchar(255) not null,
    create_time timestamp(6) with time zone not null,
    -- When the relay last handed the message to the broker; null while it waits to be (re)sent.
    publish_time timestamp(6) with time zone,
    -- When the broker confirmed it (in standalone mode: when the in-process worker finished with it).
    confirm_time timestamp(6) with time zone,
    tries integer default 0 not null
);
create index bench_outbox_unsent on bench_outbox (create_time) where publish_time is null;

alter table bench_attempt add column deliveries integer default 0 not null;
