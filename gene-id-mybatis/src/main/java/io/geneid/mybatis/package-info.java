/**
 * MyBatis-Plus integration: {@link io.geneid.mybatis.GeneIdentifierGenerator} issues {@code IdType.ASSIGN_ID} ids
 * that carry the gene of the entity's {@link io.geneid.core.GeneSource @GeneSource} field.
 *
 * <p>Every type here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package io.geneid.mybatis;

import org.jspecify.annotations.NullMarked;
