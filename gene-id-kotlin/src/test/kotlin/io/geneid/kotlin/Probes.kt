package io.geneid.kotlin

import io.geneid.core.snowflake.GeneSnowflakeGenerator
import io.geneid.core.testing.GeneProbe
import io.geneid.core.testing.ManualClock
import java.util.concurrent.CyclicBarrier
import java.util.concurrent.TimeUnit
import kotlin.test.fail
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking

/** A generator of its own for a test. */
fun testIds(workerId: Long): GeneSnowflakeGenerator = GeneSnowflakeGenerator.builder().workerId(workerId)
    .clock(ManualClock.atDefaultEpochPlusDays(100).tickEvery(100)).buildUnshared()

/** A thread's name without the ` @coroutine#n` kotlinx's debug mode appends while a coroutine runs on it. */
fun plainName(name: String): String = name.substringBefore(" @")

private const val SCHEDULER = "DefaultDispatcher-worker-"

/**
 * Probes every live thread of kotlinx's scheduler, which [Dispatchers.Default] and [Dispatchers.IO] share: as many
 * blocking probes on IO as there are such threads (more on a later try), held at a barrier so that each runs on a
 * thread of its own, until the probed threads include every live one.
 */
fun probeSchedulerThreads(): List<GeneProbe> {
    repeat(5) { attempt ->
        val live = Thread.getAllStackTraces().keys.map { plainName(it.name) }.filter { it.startsWith(SCHEDULER) }
        val n = maxOf(1, live.size + attempt)
        val all = CyclicBarrier(n)
        val probes = runBlocking {
            List(n) { async(Dispatchers.IO) { all.await(30, TimeUnit.SECONDS); GeneProbe.here() } }.awaitAll()
        }
        if (probes.map { plainName(it.thread()) }.toSet().containsAll(live)) {
            return probes
        }
    }
    fail("could not reach every thread of $SCHEDULER")
}
