-- submission_coverage: how much of its month each private or historical submission attempted. A
-- submission ranks only when it covered the month: an attempted run on every task of the month.
-- The month's tasks are the list published at its start (stg_month_tasks); without one in the store,
-- the most tasks any submission attempted that month.
-- depends: run_facts, stg_month_tasks
-- grain: submission_id
-- check: tasks_covered <= tasks_in_month and coverage between 0 and 1
-- check: covered = (tasks_in_month > 0 and tasks_covered = tasks_in_month)
with runs as (
    select * from run_facts
    where split_kind in ('private', 'historical')
),

month_tasks as (
    select * from stg_month_tasks
),

published as (
    select month, count(*) as tasks
    from month_tasks
    group by month
),

per_submission as (
    select
        runs.submission_id,
        runs.split,
        runs.split_kind,
        runs.month,
        count(distinct runs.task_id) filter (where runs.attempted) as tasks_attempted,
        count(distinct runs.task_id) filter (where runs.attempted and month_tasks.task_id is not null)
            as tasks_attempted_listed
    from runs
    left join month_tasks on month_tasks.month = runs.month and month_tasks.task_id = runs.task_id
    group by runs.submission_id, runs.split, runs.split_kind, runs.month
),

observed as (
    select split, max(tasks_attempted) as tasks
    from per_submission
    group by split
),

final as (
    select
        per_submission.submission_id,
        per_submission.split,
        per_submission.split_kind,
        per_submission.month,
        published.tasks is not null as month_published,
        coalesce(published.tasks, observed.tasks) as tasks_in_month,
        case when published.tasks is not null then per_submission.tasks_attempted_listed
            else per_submission.tasks_attempted end as tasks_covered
    from per_submission
    left join published on published.month = per_submission.month
    left join observed on observed.split = per_submission.split
)

select
    *,
    tasks_covered / nullif(tasks_in_month, 0) as coverage,
    tasks_in_month > 0 and tasks_covered = tasks_in_month as covered
from final
