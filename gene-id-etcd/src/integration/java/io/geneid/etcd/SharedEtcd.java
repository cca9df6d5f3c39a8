package io.geneid.etcd;

import io.geneid.core.testing.SharedFixture;

/** One {@link PrivateEtcd} for the test classes of a JVM that use key prefixes of their own and never stop it. */
public final class SharedEtcd extends SharedFixture<PrivateEtcd> {

  public SharedEtcd() {
    super(PrivateEtcd.class);
  }

  @Override
  protected PrivateEtcd start() {
    return PrivateEtcd.start();
  }
}
