package io.geneid.kotlin

import io.geneid.core.GeneContext
import io.geneid.core.internal.Scopes
import java.util.concurrent.Executor
import java.util.concurrent.ExecutorService
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.ThreadContextElement
import kotlinx.coroutines.withContext


/**
 * The parent's gene as a coroutine context element. A [GeneContext] scope is thread-local, and a coroutine moves
 * between threads at every suspension; this element puts a scope of [parentKey] on whatever thread the coroutine
 * resumes on, and gives that thread back its own state when the coroutine suspends or ends, so every id that
 * `nextId()` makes inside carries the parent's gene and no pooled thread keeps it afterwards. Child coroutines
 * (`launch`, `async`, `withContext`) inherit it like any element.
 *
 * Usually entered through [withGene]; pass it to a coroutine builder to start one with a gene:
 * `scope.launch(GeneContextElement(orderId)) { ... }`.
 *
 * A raw `GeneContext.inherit(...)` scope opened inside a coroutine is a thread's scope: it does not follow the
 * coroutine across a suspension, and is dropped from the thread when the coroutine suspends. Use a nested [withGene]
 * instead.
 */
public class GeneContextElement private constructor(
    private val state: Any,
    /** The parent key whose gene this element carries. */
    public val parentKey: Any,
) : ThreadContextElement<Any?>, AbstractCoroutineContextElement(Key) {

    /**
     * An element carrying the gene of [parentKey]: a whole number, a String or a UUID, as for
     * `GeneContext.inherit`.
     */
    public constructor(parentKey: Any) : this(Scopes.carrying(parentKey), parentKey)

    /** The key of this element in a coroutine context: `coroutineContext[GeneContextElement]?.parentKey`. */
    public companion object Key : CoroutineContext.Key<GeneContextElement>

    /** Installs this gene on the thread the coroutine resumes on; returns the thread's own state. */
    override fun updateThreadContext(context: CoroutineContext): Any? = Scopes.install(state)

    /** Gives the thread back its own state, dropping any scope the coroutine left open on it. */
    override fun restoreThreadContext(context: CoroutineContext, oldState: Any?) {
        Scopes.install(oldState)
    }

    override fun toString(): String = "GeneContextElement($parentKey)"
}

/**
 * Runs [block] with the gene of [parentKey]: every id `nextId()` makes inside, on whichever threads the block and
 * its child coroutines run, carries the parent's gene.
 *
 * ```
 * val itemId = withGene(orderId) {
 *     withContext(Dispatchers.IO) { items.insert(item) }   // the generated id carries orderId's gene
 * }
 * ```
 */
public suspend fun <T> withGene(parentKey: Any, block: suspend CoroutineScope.() -> T): T =
    withContext(GeneContextElement(parentKey), block)

/**
 * This scope's gene as a coroutine context element, to hand a scope opened by Java code to coroutines:
 * `GeneContext.inherit(orderId).use { scope -> runBlocking(scope.asContextElement()) { ... } }`.
 *
 * @throws IllegalStateException for a per-row scope (`GeneContext.inheritEach`), which stays on its thread
 */
public fun GeneContext.Scope.asContextElement(): GeneContextElement =
    GeneContextElement(parentKey())

/** This executor, running every task with the gene of the submitting thread: `GeneContext.wrapExecutor(this)`. */
public fun Executor.carryingGene(): Executor = GeneContext.wrapExecutor(this)

/** This executor service, running every task with the gene of the submitting thread: `GeneContext.wrap(this)`. */
public fun ExecutorService.carryingGene(): ExecutorService = GeneContext.wrap(this)
