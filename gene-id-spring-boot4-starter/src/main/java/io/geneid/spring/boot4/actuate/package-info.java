/** The Spring Boot 4 health indicator; the rest (endpoint, metrics, properties) is gene-id-spring-boot-autoconfigure. */
@NullMarked
package io.geneid.spring.boot4.actuate;

import org.jspecify.annotations.NullMarked;
