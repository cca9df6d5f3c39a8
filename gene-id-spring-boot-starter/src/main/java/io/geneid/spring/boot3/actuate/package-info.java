/**
 * The Spring Boot 3 health indicator; the rest (endpoint, metrics, properties) comes from
 * gene-id-spring-boot-autoconfigure, shared with the Boot 4 starter.
 */
@NullMarked
package io.geneid.spring.boot3.actuate;

import org.jspecify.annotations.NullMarked;
