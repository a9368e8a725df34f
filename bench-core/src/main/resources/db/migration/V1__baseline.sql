-- The schema as Hibernate built it before migrations existed. A database that Hibernate made (schema-management
-- update) is baselined at this version (quarkus.flyway.baseline-on-migrate) and continues from V2.

create table bench_run (
    id varchar(255) not null primary key,
    tenant varchar(255) not null,
    state varchar(255) not null,
    agent varchar(255) not null,
    guard_mode varchar(255) not null,
    repeats integer not null,
    request_id varchar(255),
    instance_ids text not null,
    manifest text not null,
    attempts_total integer not null,
    attempts_done integer not null,
    attempts_failed integer not null,
    proceeded integer not null,
    passed integer not null,
    trace_similarity_sum double precision default 0 not null,
    agent_config text default '{}' not null,
    llm_calls bigint default 0 not null,
    input_tokens bigint default 0 not null,
    cached_input_tokens bigint default 0 not null,
    output_tokens bigint default 0 not null,
    cost_usd double precision default 0 not null,
    priced boolean default true not null,
    probes bigint default 0 not null,
    explores bigint default 0 not null,
    heals bigint default 0 not null,
    reraises bigint default 0 not null,
    format_errors bigint default 0 not null,
    self_reported boolean default false not null,
    create_time timestamp(6) with time zone not null,
    update_time timestamp(6) with time zone not null,
    constraint bench_run_request_key unique (tenant, request_id)
);

create table bench_attempt (
    id varchar(255) not null primary key,
    run_id varchar(255) not null,
    tenant varchar(255) not null,
    instance_id varchar(255) not null,
    repeat_index integer not null,
    state varchar(255) not null,
    proceeded boolean not null,
    passed boolean not null,
    heal_points integer not null,
    heals_applied integer not null,
    heals_rejected integer not null,
    exception_type varchar(255),
    exit_cause varchar(255),
    failure_class varchar(255),
    detail text,
    wall_time_ms bigint not null,
    trace_similarity double precision default 0 not null,
    llm_calls bigint default 0 not null,
    input_tokens bigint default 0 not null,
    cached_input_tokens bigint default 0 not null,
    output_tokens bigint default 0 not null,
    cost_usd double precision default 0 not null,
    priced boolean default true not null,
    probes bigint default 0 not null,
    explores bigint default 0 not null,
    heals bigint default 0 not null,
    reraises bigint default 0 not null,
    format_errors bigint default 0 not null,
    self_reported boolean default false not null,
    heal_point_exits text,
    claim_id varchar(255),
    claim_holder varchar(255),
    claim_expire_time timestamp(6) with time zone,
    lapses integer default 0 not null,
    create_time timestamp(6) with time zone not null,
    start_time timestamp(6) with time zone,
    end_time timestamp(6) with time zone
);
create index bench_attempt_run on bench_attempt (tenant, run_id);

create table bench_attempt_event (
    event_id varchar(255) not null primary key,
    tenant varchar(255) not null,
    run_id varchar(255) not null,
    attempt_id varchar(255) not null,
    kind varchar(255) not null,
    payload text not null,
    guard_heal_point integer,
    guard_stage varchar(255),
    guard_verdict varchar(255),
    guard_reason text,
    event_time timestamp(6) with time zone not null,
    receive_time timestamp(6) with time zone not null
);
create index bench_attempt_event_attempt on bench_attempt_event (tenant, attempt_id);

create table bench_trajectory (
    attempt_id varchar(255) not null primary key,
    tenant varchar(255) not null,
    run_id varchar(255) not null,
    json text not null
);
