-- What a rollup row is (metrics_rollup, trials_rollup): GROUPING SETS over submission and server give
-- four grains, told apart by which of the two were grouped (grouping(x) = 0: grouped by x).
create or replace macro rollup_grain(by_submission, by_server) as
    case
        when by_submission = 0 and by_server = 0 then 'submission_server'
        when by_submission = 0 then 'submission'
        when by_server = 0 then 'split_server'
        else 'split'
    end;

-- the server of a rollup row: 'all' on the per-split row over every server, null on a per-submission one
create or replace macro rollup_server(by_submission, by_server, server) as
    case when by_submission = 1 and by_server = 1 then 'all' else server end;
