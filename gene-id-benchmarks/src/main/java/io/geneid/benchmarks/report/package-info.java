/**
 * Turns JMH JSON results into {@code BENCHMARKS.md}: every generator's measured rate beside the ceiling its bit
 * layout allows. Not an API.
 */
@NullMarked
package io.geneid.benchmarks.report;

import org.jspecify.annotations.NullMarked;
