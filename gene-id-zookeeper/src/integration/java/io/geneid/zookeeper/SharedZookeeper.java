package io.geneid.zookeeper;

import io.geneid.core.testing.SharedFixture;

/** One {@link TestZookeeper} for the test classes of a JVM that use base paths of their own and never stop it. */
public final class SharedZookeeper extends SharedFixture<TestZookeeper> {

  public SharedZookeeper() {
    super(TestZookeeper.class);
  }

  @Override
  protected TestZookeeper start() {
    return new TestZookeeper();
  }
}
