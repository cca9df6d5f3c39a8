/**
 * The {@link io.geneid.core.GeneContext} scope for Micrometer's context-propagation library, so that Reactor,
 * Spring's task executors with a {@code ContextPropagatingTaskDecorator} and {@code @Async} carry the parent's gene
 * to the threads they hop to: {@link io.geneid.context.GeneContextAccessor}, registered through
 * {@code META-INF/services}.
 */
@NullMarked
package io.geneid.context;

import org.jspecify.annotations.NullMarked;
