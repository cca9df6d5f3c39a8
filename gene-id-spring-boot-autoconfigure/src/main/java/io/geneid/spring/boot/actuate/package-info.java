/**
 * Operations support for gene-id in Spring Boot: the {@code geneid} actuator endpoint that decodes an id and names its
 * shard ({@link io.geneid.spring.boot.actuate.GeneIdEndpoint}), the {@code geneid} health that goes DOWN when a
 * worker-id lease is lost or about to lapse ({@link io.geneid.spring.boot.actuate.GeneIdHealth}; each starter reports
 * it through a {@code GeneIdHealthIndicator} on its Boot line's health API), and Micrometer meters for every
 * generator bean ({@link io.geneid.spring.boot.actuate.GeneIdActuatorAutoConfiguration}).
 *
 * <p>Every type here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package io.geneid.spring.boot.actuate;

import org.jspecify.annotations.NullMarked;
