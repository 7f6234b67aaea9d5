-- stg_month_tasks: one row per task of a month, from the (task_id, sha256) lists published at each
-- month's start (public/attestations/YYYY-MM.json in the store): what a submission must cover to rank.
-- Ids and hashes only; the build fills {{ source('month_tasks') }}.
-- grain: month, task_id
with source as (
    select * from {{ source('month_tasks') }}
),

final as (
    select distinct
        month,
        task_id
    from source
)

select * from final
