-- trials_by_submission: pass@1, pass^k and pass@k with their 95% Wilson intervals, and model tokens and
-- cost, for each submission over all its servers (the score card; trials_rollup's grain 'submission').
-- depends: trials_rollup
-- grain: submission_id
select * exclude (grain, server, submissions)
from trials_rollup
where grain = 'submission'
