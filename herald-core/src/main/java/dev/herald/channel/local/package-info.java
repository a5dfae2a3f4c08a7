/** The in-process channel: notices delivered to Java handlers registered by name. */
package dev.herald.channel.local;
