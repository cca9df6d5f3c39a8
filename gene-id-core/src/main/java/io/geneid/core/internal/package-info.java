/**
 * Not API: what gene-id's own modules share and users must not call (range checks, worker-id claims, the hooks
 * between core's packages, the per-table root spread). Anything here may change in any release.
 */
@NullMarked
package io.geneid.core.internal;

import org.jspecify.annotations.NullMarked;
