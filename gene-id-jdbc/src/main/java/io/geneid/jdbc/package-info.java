/** gene-id over JDBC: worker-id leases, segment ranges and the bucket map store. */
@NullMarked
package io.geneid.jdbc;

import org.jspecify.annotations.NullMarked;
