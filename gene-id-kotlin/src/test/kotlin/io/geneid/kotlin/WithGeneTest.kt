package io.geneid.kotlin

import io.geneid.core.GeneContext
import io.geneid.core.testing.GeneProbe
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNotEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue
import kotlin.test.fail
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.newFixedThreadPoolContext
import kotlinx.coroutines.newSingleThreadContext
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield

/**
 * The scenarios with real coroutines on real dispatchers. Each test ends by probing every thread the
 * coroutines could have run on: none keeps a scope, root ids spread.
 */
@OptIn(DelicateCoroutinesApi::class, kotlinx.coroutines.ExperimentalCoroutinesApi::class)
class WithGeneTest {

    private val ids = testIds(11)
    private val layout = ids.layout()

    @AfterTest
    fun noSchedulerThreadKeepsAGene() {
        val dirty = probeSchedulerThreads().filterNot { it.clean() }
        assertTrue(dirty.isEmpty(), "threads that kept a gene: $dirty")
        assertFalse(GeneContext.isActive())
    }

    @Test
    fun `withContext(IO) inside withGene gives the child the parent's gene`() = runBlocking {
        repeat(200) { n ->
            val orderId = 1_000L + n
            val itemId = withGene(orderId) { withContext(Dispatchers.IO) { ids.nextId() } }
            assertEquals(layout.geneOf(orderId), layout.geneOf(itemId))
        }
    }

    @Test
    fun `a raw scope stays on its thread - the issue's first scenario - and asContextElement carries it`() =
        runBlocking {
            GeneContext.inherit(43L).use { scope ->
                assertFalse(withContext(Dispatchers.IO) { GeneContext.isActive() }, "IO runs on another thread")
                repeat(50) {
                    val itemId = withContext(Dispatchers.IO + scope.asContextElement()) { ids.nextId() }
                    assertEquals(43L, layout.geneOf(itemId))
                }
            }
        }

    @Test
    fun `delay on Default keeps the gene across every resume`() = runBlocking {
        val threads = ConcurrentHashMap.newKeySet<String>()
        withContext(Dispatchers.Default) {
            withGene(43L) {
                repeat(100) {
                    delay(1)
                    threads += plainName(Thread.currentThread().name)
                    assertEquals(43L, layout.geneOf(ids.nextId()))
                }
            }
        }
        assertTrue(threads.all { it.startsWith("DefaultDispatcher-worker-") })
    }

    /**
     * The second scenario: a raw scope held across `delay` on Default and closed on the thread the coroutine
     * resumed on. Before the fix the close threw and the opening thread kept gene 43 for every later root id. Now
     * it still throws, naming the opening thread, and the scope has ended everywhere. To make the coroutine resume
     * elsewhere, it queues a task on its own thread that holds that thread until the coroutine has resumed.
     */
    @Test
    fun `a raw scope closed on another thread after delay on Default leaves no gene behind`() = runBlocking {
        var hopped = 0
        repeat(20) {
            var opener = ""
            var closer = ""
            val error = runCatching {
                withContext(Dispatchers.Default) {
                    val resumed = CountDownLatch(1)
                    val scope = GeneContext.inherit(43L)
                    opener = Thread.currentThread().name
                    launch { resumed.await() } // queued on this worker: runs here while the coroutine is suspended
                    try {
                        delay(5)
                    } finally {
                        closer = Thread.currentThread().name
                        resumed.countDown()
                    }
                    scope.close()
                }
            }.exceptionOrNull()
            if (plainName(opener) != plainName(closer)) {
                hopped++
                assertEquals("GeneContext scope opened on $opener was closed on $closer: a scope belongs to the"
                    + " thread that opened it, and has now ended there too; carry a gene to other threads with"
                    + " GeneContext.wrap, withGene (Kotlin) or gene-id-context-propagation", error?.message)
            } else {
                assertNull(error)
            }
        }
        assertTrue(hopped > 0, "the coroutine never resumed on another thread")
    }

    @Test
    fun `hundreds of coroutines with different parents on a pool of two threads`() {
        val pool = newFixedThreadPoolContext(2, "gene-kt-pool")
        try {
            val mismatches = ConcurrentHashMap.newKeySet<String>()
            runBlocking(pool) {
                (0 until 500).map { n ->
                    val parent: Any = if (n % 2 == 0) 7_000L + n else "customer-$n"
                    async {
                        withGene(parent) {
                            repeat(5) { step ->
                                if (step % 2 == 0) yield() else delay(1)
                                val id = ids.nextId()
                                if (layout.geneOf(id) != layout.geneOfKey(parent)) {
                                    mismatches += "$parent -> $id"
                                }
                            }
                            coroutineScope { // children inherit the element, nested withGene replaces it
                                launch { check(layout.geneOf(ids.nextId()) == layout.geneOfKey(parent)) }
                                launch {
                                    withGene(n.toLong()) { delay(1); check(layout.geneOf(ids.nextId()) == n % 64L) }
                                    check(layout.geneOf(ids.nextId()) == layout.geneOfKey(parent))
                                }
                            }
                        }
                    }
                }.awaitAll()
            }
            assertTrue(mismatches.isEmpty(), "ids without their parent's gene: $mismatches")
            val probes = GeneProbe.onEveryThread(pool.executor, 2, "gene-kt-pool")
            assertTrue(probes.all { it.clean() }, "pool threads that kept a gene: $probes")
        } finally {
            pool.close()
        }
    }

    @Test
    fun `the element gives the thread back its own scope and drops what the coroutine left open`() {
        val single = newSingleThreadContext("gene-kt-single")
        try {
            val own = runBlocking(single) { GeneContext.inherit(7L) } // a scope the thread keeps between tasks
            runBlocking(single + GeneContextElement(43L)) {
                assertEquals(43L, layout.geneOf(ids.nextId()))
                GeneContext.inherit(9L) // never closed
                assertEquals(9L, layout.geneOf(ids.nextId()))
            }
            assertEquals(7L, runBlocking(single) { layout.geneOf(ids.nextId()) })
            runBlocking(single) { own.close() }
            assertTrue(GeneProbe.onEveryThread(single.executor, 1, "gene-kt-single").all { it.clean() })
        } finally {
            single.close()
        }
    }

    @Test
    fun `the element is readable from the coroutine context`() = runBlocking {
        assertNull(coroutineContext[GeneContextElement])
        withGene("tenant-a") {
            assertEquals("tenant-a", coroutineContext[GeneContextElement]?.parentKey)
            assertEquals(layout.geneOf("tenant-a"), layout.geneOf(ids.nextId()))
        }
        assertNull(coroutineContext[GeneContextElement])
    }

    @Test
    fun `a per-row scope is not carried`() {
        GeneContext.inheritEach(listOf(1L, 2L)).use { scope ->
            val error = runCatching { scope.asContextElement() }.exceptionOrNull() ?: fail("carried")
            assertTrue(error is IllegalStateException)
            assertNotEquals(null, error.message)
            ids.nextId()
            ids.nextId()
        }
    }

    @Test
    fun `executor extensions carry the submitter's gene`() {
        val executor = Executors.newFixedThreadPool(2)
        try {
            val service = executor.carryingGene()
            val plain: java.util.concurrent.Executor = executor
            GeneContext.inherit(21L).use {
                assertEquals(21L, layout.geneOf(service.submit<Long> { ids.nextId() }.get()))
                val done = CountDownLatch(1)
                var id = 0L
                plain.carryingGene().execute { id = ids.nextId(); done.countDown() }
                done.await()
                assertEquals(21L, layout.geneOf(id))
            }
        } finally {
            executor.shutdownNow()
        }
    }
}
