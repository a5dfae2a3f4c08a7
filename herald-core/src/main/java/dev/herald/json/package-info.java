/**
 * For channels and intakes that look inside a payload: {@link dev.herald.json.JsonTree} reads JSON
 * text into plain Java values, refusing malformed text with the same reason Herald's enqueue gives.
 */
package dev.herald.json;
