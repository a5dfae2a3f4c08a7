/**
 * Recurring notices: {@link dev.herald.recurring.RecurringSchedule schedules} (a {@link
 * dev.herald.recurring.CronExpression cron expression} in a time zone, or a fixed rate) that make one
 * notice per slot, exactly once across all nodes, with a policy for slots missed during downtime
 * ({@link dev.herald.recurring.Recurring}).
 */
package dev.herald.recurring;
