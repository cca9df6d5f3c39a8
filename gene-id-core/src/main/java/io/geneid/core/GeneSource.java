package io.geneid.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the field of an entity that holds its parent's key. An id generated for the entity carries the gene of that
 * key (see {@link GeneIdLayout#geneOfKey(Object)}), so the row lands on its parent's shard. Supported field types:
 * {@code long}/{@code Long}, {@code int}/{@code Integer}, {@code short}, {@code String}, {@code UUID}, and
 * {@code BigInteger}.
 *
 * <p>Lives in the core module so that entities need no import of an ORM to use it.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface GeneSource {}
