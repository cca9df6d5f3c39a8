/**
 * The {@code gene-id} command line: {@link io.geneid.cli.GeneIdCli}. Not an API: run it as
 * {@code java -jar gene-id-cli.jar}.
 *
 * <p>Every type here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package io.geneid.cli;

import org.jspecify.annotations.NullMarked;
