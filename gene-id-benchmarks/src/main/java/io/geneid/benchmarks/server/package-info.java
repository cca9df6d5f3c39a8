/**
 * gene-id-server measured from outside: the gRPC load of {@code gene-id-benchmarks/server/side-by-side.sh}
 * ({@link io.geneid.benchmarks.server.GrpcLoadDriver}) and the Java client's throughput from its buffers
 * ({@link io.geneid.benchmarks.server.ClientBufferBenchmark}, JMH). Not an API.
 */
@NullMarked
package io.geneid.benchmarks.server;

import org.jspecify.annotations.NullMarked;
