package io.geneid.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One {@link PrivateCluster} per test JVM, for the test classes that only read and write keys of their own prefix
 * and leave the nodes as they found them (the contract tests): {@code @ExtendWith(SharedCluster.class)} and a
 * {@code @BeforeAll} method with a {@code PrivateCluster} parameter. The first class that asks starts it (six nodes,
 * several seconds); it is kept in the root context's store and stopped when the JVM's tests are done. Tests that kill
 * or fail over nodes start a cluster of their own.
 */
public final class SharedCluster implements ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedCluster.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == PrivateCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Started.class, k -> Started.start(),
        Started.class).cluster;
  }

  /** The cluster and its folder, stopped and removed when the root context closes. */
  private record Started(PrivateCluster cluster, Path dir) implements ExtensionContext.Store.CloseableResource {

    static Started start() {
      try {
        Path dir = Files.createTempDirectory("gene-id-shared-cluster");
        return new Started(PrivateCluster.start(dir), dir);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() throws IOException {
      cluster.close();
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
