package io.geneid.core;

import java.time.Instant;

/**
 * The fields of one id, as {@link GeneIdLayout#decode(long)} reads them.
 *
 * @param timestamp the millisecond the id was issued for (may be a little ahead of the clock: borrowed time; or about
 *     a millisecond behind the moment of issue: the generator's recent clock reading)
 * @param workerId the worker that issued it
 * @param sequence its place within that millisecond, per gene
 * @param gene the gene: the low bits of the parent key it was issued for, or a spread value for root rows
 */
public record GeneIdParts(Instant timestamp, long workerId, long sequence, long gene) {}
