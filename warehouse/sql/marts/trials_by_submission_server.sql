-- trials_by_submission_server: pass@1, pass^k and pass@k with their 95% Wilson intervals, and model
-- tokens and cost, for each submission on each server (trials_rollup's grain 'submission_server').
-- depends: trials_rollup
-- grain: submission_id, server
select * exclude (grain, submissions)
from trials_rollup
where grain = 'submission_server'
