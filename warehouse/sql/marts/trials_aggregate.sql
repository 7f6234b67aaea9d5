-- trials_aggregate: pass@1, pass^k and pass@k with their 95% Wilson intervals, and model tokens and
-- cost, pooled over every submission of a split with the same number of trials k, per server and over
-- all servers (server = 'all'; trials_rollup's grains 'split_server' and 'split').
-- depends: trials_rollup
-- grain: split, k, server
-- check: submissions >= 1
select split, split_kind, k, server, * exclude (grain, submission_id, submitter, agent, split, split_kind, k, server)
from trials_rollup
where grain in ('split_server', 'split')
