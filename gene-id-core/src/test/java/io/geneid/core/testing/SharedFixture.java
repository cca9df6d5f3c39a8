package io.geneid.core.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A store process or server that every test class of a JVM shares: the first class that asks for it starts it, and
 * it is closed once, when the JVM's tests are done (it lives in the root extension context's store). A subclass
 * names the type and how to start it; a test class says {@code @ExtendWith(TheSubclass.class)} and takes the fixture
 * as a parameter of a {@code @BeforeAll} method. Only for tests that leave the fixture as they found it (keys, paths
 * or tables of their own); a test that stops, restarts or breaks a store starts one of its own.
 */
public abstract class SharedFixture<T extends AutoCloseable> implements ParameterResolver {

  private final Class<T> type;

  protected SharedFixture(Class<T> type) {
    this.type = type;
  }

  /** Starts the fixture; called once per JVM. */
  protected abstract T start();

  @Override
  public final boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == type;
  }

  @Override
  public final Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    ExtensionContext.Store store = context.getRoot().getStore(ExtensionContext.Namespace.create(SharedFixture.class));
    return type.cast(store.getOrComputeIfAbsent(getClass(), k -> new Started(start()), Started.class).fixture);
  }

  /** Closes the fixture when the root context closes. */
  private record Started(AutoCloseable fixture) implements ExtensionContext.Store.CloseableResource {
    @Override
    public void close() throws Throwable {
      fixture.close();
    }
  }
}
