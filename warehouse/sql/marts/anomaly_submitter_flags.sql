-- anomaly_submitter_flags: private-month submissions whose success rate is more than 2 sigma above
-- the same submitter's earlier private-month submissions. Flagged for review, with the numbers.
-- Minimum history: 3 earlier scored submissions. Sigma is the sample standard deviation of those
-- earlier success rates, but never less than the sampling noise of one score, the binomial standard
-- error sqrt(p (1 - p) / attempted) at the prior mean p, nor than 0.025 (4 of 160 tasks): a few
-- similar prior scores must not turn ordinary noise into a flag.
-- And the jump must be outside the noise the leaderboard reports (the same model as its
-- separable_from_next): this submission's 95% Wilson interval must lie wholly above the Wilson interval
-- of its submitter's prior submissions pooled (their passes over their attempted runs).
-- depends: metrics_by_submission
-- grain: submission_id
-- check: prior_submissions >= 3 and success_rate > threshold and z_score > 2
-- check: success_rate_ci_low > prior_ci_high
with submissions as (
    select * from metrics_by_submission
    where split_kind = 'private' and attempted > 0
),

params as (
    select 3 as min_prior_submissions, 2.0 as sigmas, 0.025 as sigma_floor
),

history as (
    select
        submission_id,
        submitter,
        agent,
        split,
        submitted_at,
        attempted,
        passed,
        success_rate,
        count(success_rate) over prior as prior_submissions,
        (sum(passed) over prior)::bigint as prior_passed,
        (sum(attempted) over prior)::bigint as prior_attempted,
        avg(success_rate) over prior as prior_mean,
        stddev_samp(success_rate) over prior as prior_sd
    from submissions
    window prior as (
        partition by submitter order by submitted_at, submission_id
        rows between unbounded preceding and 1 preceding
    )
),

scored as (
    select
        history.*,
        greatest(
            coalesce(history.prior_sd, 0),
            sqrt(history.prior_mean * (1 - history.prior_mean) / history.attempted),
            params.sigma_floor
        ) as sigma
    from history, params
    where history.prior_submissions >= params.min_prior_submissions
),

judged as (
    select
        scored.*,
        scored.prior_mean + params.sigmas * scored.sigma as threshold,
        (scored.success_rate - scored.prior_mean) / scored.sigma as z_score,
        wilson_low(scored.passed, scored.attempted) as success_rate_ci_low,
        wilson_high(scored.passed, scored.attempted) as success_rate_ci_high,
        wilson_low(scored.prior_passed, scored.prior_attempted) as prior_ci_low,
        wilson_high(scored.prior_passed, scored.prior_attempted) as prior_ci_high
    from scored, params
),

final as (
    select
        submission_id,
        submitter,
        agent,
        split,
        submitted_at,
        attempted,
        success_rate,
        prior_submissions,
        prior_mean,
        prior_sd,
        sigma,
        threshold,
        z_score,
        success_rate_ci_low,
        success_rate_ci_high,
        prior_passed,
        prior_attempted,
        prior_ci_low,
        prior_ci_high,
        printf(
            'success rate %.3f is %.1f sigma above %d prior submissions (mean %.3f, sd %.3f; threshold %.3f); '
            || 'its 95%% interval [%.3f, %.3f] lies above theirs [%.3f, %.3f] (%d/%d)',
            success_rate, z_score, prior_submissions, prior_mean, coalesce(prior_sd, 0), threshold,
            success_rate_ci_low, success_rate_ci_high, prior_ci_low, prior_ci_high, prior_passed, prior_attempted
        ) as reason
    from judged
    where success_rate > threshold
        and success_rate_ci_low > prior_ci_high
)

select * from final
