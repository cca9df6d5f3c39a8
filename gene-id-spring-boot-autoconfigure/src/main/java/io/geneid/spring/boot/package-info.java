/**
 * Spring Boot auto-configuration of gene-id, shared by the Boot 3 and Boot 4 starters: {@code gene-id.*} properties
 * ({@link io.geneid.spring.boot.GeneIdProperties}), the JVM-shared generator ({@link
 * io.geneid.spring.boot.GeneIdAutoConfiguration}) and, with MyBatis-Plus, its {@code IdentifierGenerator}
 * ({@link io.geneid.spring.boot.GeneIdMybatisPlusAutoConfiguration}).
 *
 * <p>Every type here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package io.geneid.spring.boot;

import org.jspecify.annotations.NullMarked;
