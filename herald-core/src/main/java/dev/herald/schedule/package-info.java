/** Retry schedules: how long a notice waits before each retry, as values with a text form. */
package dev.herald.schedule;
