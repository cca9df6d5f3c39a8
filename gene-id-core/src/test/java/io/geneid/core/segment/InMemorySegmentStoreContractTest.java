package io.geneid.core.segment;

import io.geneid.core.GeneIdException;

/** The segment contract over {@link SegmentTestStore}: the generator's side of it, without a service. */
class InMemorySegmentStoreContractTest extends AbstractSegmentStoreContractTest
    implements SegmentStoreOutageContract {

  private final SegmentTestStore store = new SegmentTestStore();

  @Override
  protected SegmentStore newStore() {
    return store; // one in-process counter stands for the shared store of several processes
  }

  @Override
  protected long counter(String tag) {
    return store.max(tag);
  }

  @Override
  protected void loseCounter(String tag) {
    store.reset(tag, 0);
  }

  @Override
  protected int idsPerThread() {
    return 50_000;
  }

  @Override
  public Outage outage() {
    return new Outage(store, () -> store.failWith(new GeneIdException("store down for the test")), store::recover,
        "SegmentTestStore", "store down for the test", null);
  }
}
