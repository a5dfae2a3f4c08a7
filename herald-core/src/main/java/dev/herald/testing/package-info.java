/** Test helpers for users of Herald: a settable clock and a driver that runs what is due now. */
package dev.herald.testing;
