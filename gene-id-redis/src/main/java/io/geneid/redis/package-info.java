/** gene-id over Redis (Lettuce): worker-id leases and segment ranges. */
@NullMarked
package io.geneid.redis;

import org.jspecify.annotations.NullMarked;
