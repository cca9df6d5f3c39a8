/** gene-id over JDBC: worker-id leases and segment ranges. */
@NullMarked
package io.geneid.jdbc;

import org.jspecify.annotations.NullMarked;
