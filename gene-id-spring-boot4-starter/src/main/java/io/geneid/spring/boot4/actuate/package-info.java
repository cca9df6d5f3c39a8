/**
 * The Spring Boot 4 health indicator; the rest (endpoint, metrics, properties) comes from
 * gene-id-spring-boot-autoconfigure, shared with the Boot 3 starter.
 */
@NullMarked
package io.geneid.spring.boot4.actuate;

import org.jspecify.annotations.NullMarked;
