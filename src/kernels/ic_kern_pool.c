/* ic_kern_pool: the persistent thread pool the decode kernel runs on.
 *
 * A decode step has a handful of parallel regions per layer (projections,
 * attention, MLP), each lasting from microseconds (small models) to tens of
 * milliseconds. Creating threads per region would dominate the small ones, so
 * the workers live as long as the pool and a region costs one wake-up and one
 * join. Workers spin on a generation counter for a short while after each
 * region (the next one usually follows within microseconds) and then sleep on
 * a condition variable, so an idle pool burns no CPU. The caller runs as
 * thread 0, so a pool of n threads starts n - 1 workers.
 *
 * Wake-up protocol (no lost wake-ups without taking the mutex on the fast
 * path): a worker about to sleep increments `sleepers` and then re-checks
 * `gen` under the mutex; the caller bumps `gen` and then reads `sleepers`.
 * Both are sequentially consistent, so at least one side sees the other, and
 * a caller that sees a sleeper broadcasts under the mutex. The join mirrors
 * it with `left` and `waiting`. */
#include "ic_kern.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

/* Polls before sleeping: ~50-100 us of pause instructions on current x86,
 * longer than the gap between two regions of a step, far shorter than the
 * time between steps that a sleeping pool would otherwise waste. */
enum { SPIN_POLLS = 4096 };
enum { MAX_THREADS = 1024 };

struct worker {
    struct ic_kern_pool *pool;
    int index; /* 1 .. n-1 */
};

struct ic_kern_pool {
    int n;                /* threads, caller included */
    pthread_t *threads;   /* [n - 1] workers */
    struct worker *ws;    /* [n - 1] their arguments */
    int started;          /* workers actually created */
    pthread_mutex_t mu;
    pthread_cond_t wake;  /* workers sleep here between regions */
    pthread_cond_t done;  /* the caller sleeps here on a long join */
    atomic_uint_fast64_t gen; /* bumped once per region (and on shutdown) */
    atomic_int sleepers;  /* workers asleep or about to be on `wake` */
    atomic_int left;      /* workers still running the current region */
    atomic_int waiting;   /* 1 while the caller is asleep or about to be on `done` */
    atomic_bool stop;
    void (*fn)(void *arg, int i, int n); /* current region, set before gen */
    void *arg;
    uint64_t runs;     /* ic_kern_pool_run calls so far */
    void *scratch;     /* ic_kern_pool_scratch's buffer, 64-byte aligned */
    size_t scratch_B;  /* its size */
};

static void *worker_main(void *p)
{
    struct worker *w = p;
    struct ic_kern_pool *pool = w->pool;
    uint_fast64_t seen = 0;
    for (;;) {
        int polls = 0;
        while (atomic_load(&pool->gen) == seen && ++polls < SPIN_POLLS)
            CPU_RELAX();
        if (atomic_load(&pool->gen) == seen) {
            pthread_mutex_lock(&pool->mu);
            atomic_fetch_add(&pool->sleepers, 1);
            while (atomic_load(&pool->gen) == seen)
                pthread_cond_wait(&pool->wake, &pool->mu);
            atomic_fetch_sub(&pool->sleepers, 1);
            pthread_mutex_unlock(&pool->mu);
        }
        seen = atomic_load(&pool->gen);
        if (atomic_load(&pool->stop))
            return NULL;
        pool->fn(pool->arg, w->index, pool->n);
        if (atomic_fetch_sub(&pool->left, 1) == 1 && atomic_load(&pool->waiting)) {
            pthread_mutex_lock(&pool->mu);
            pthread_cond_signal(&pool->done);
            pthread_mutex_unlock(&pool->mu);
        }
    }
}

/* Bumps the generation and wakes sleeping workers. */
static void publish(struct ic_kern_pool *pool)
{
    atomic_fetch_add(&pool->gen, 1);
    if (atomic_load(&pool->sleepers) > 0) {
        pthread_mutex_lock(&pool->mu);
        pthread_cond_broadcast(&pool->wake);
        pthread_mutex_unlock(&pool->mu);
    }
}

int ic_kern_pool_create(int n_threads, struct ic_kern_pool **out, struct ic_err *err)
{
    if (n_threads < 0 || n_threads > MAX_THREADS)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "thread count %d out of range (0 = one per CPU, at most %d)", n_threads,
                          MAX_THREADS);
    if (n_threads == 0) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        n_threads = ncpu < 1 ? 1 : ncpu > MAX_THREADS ? MAX_THREADS : (int)ncpu;
    }
    struct ic_kern_pool *pool = calloc(1, sizeof *pool);
    if (!pool)
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory for the thread pool");
    pool->n = n_threads;
    atomic_init(&pool->gen, 0);
    atomic_init(&pool->sleepers, 0);
    atomic_init(&pool->left, 0);
    atomic_init(&pool->waiting, 0);
    atomic_init(&pool->stop, false);
    int rc = IC_OK;
    if (pthread_mutex_init(&pool->mu, NULL)) {
        free(pool);
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "cannot create the pool's mutex");
    }
    if (pthread_cond_init(&pool->wake, NULL)) {
        pthread_mutex_destroy(&pool->mu);
        free(pool);
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "cannot create the pool's condition");
    }
    if (pthread_cond_init(&pool->done, NULL)) {
        pthread_cond_destroy(&pool->wake);
        pthread_mutex_destroy(&pool->mu);
        free(pool);
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "cannot create the pool's condition");
    }
    if (n_threads > 1) {
        pool->threads = calloc((size_t)n_threads - 1, sizeof *pool->threads);
        pool->ws = calloc((size_t)n_threads - 1, sizeof *pool->ws);
        if (!pool->threads || !pool->ws) {
            rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory for %d threads", n_threads);
            goto out;
        }
        for (int i = 1; i < n_threads; i++) {
            pool->ws[i - 1] = (struct worker){.pool = pool, .index = i};
            if (pthread_create(&pool->threads[i - 1], NULL, worker_main, &pool->ws[i - 1])) {
                rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "cannot start thread %d of %d", i,
                                n_threads);
                goto out;
            }
            pool->started++;
        }
    }
out:
    if (rc) {
        ic_kern_pool_free(pool);
        return rc;
    }
    *out = pool;
    return IC_OK;
}

void ic_kern_pool_free(struct ic_kern_pool *pool)
{
    if (!pool)
        return;
    atomic_store(&pool->stop, true);
    publish(pool);
    for (int i = 0; i < pool->started; i++)
        pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->mu);
    free(pool->threads);
    free(pool->ws);
    free(pool->scratch);
    free(pool);
}

void *ic_kern_pool_scratch(struct ic_kern_pool *pool, size_t n_B)
{
    if (n_B <= pool->scratch_B)
        return pool->scratch;
    if (n_B > SIZE_MAX - 64)
        return NULL;
    const size_t n = (n_B + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, n);
    if (!p)
        return NULL;
    free(pool->scratch);
    pool->scratch = p;
    pool->scratch_B = n;
    return p;
}

int ic_kern_pool_threads(const struct ic_kern_pool *pool) { return pool->n; }

uint64_t ic_kern_pool_runs(const struct ic_kern_pool *pool) { return pool->runs; }

void ic_kern_pool_run(struct ic_kern_pool *pool, void (*fn)(void *arg, int i, int n), void *arg)
{
    pool->runs++;
    if (pool->n == 1) {
        fn(arg, 0, 1);
        return;
    }
    pool->fn = fn;
    pool->arg = arg;
    atomic_store(&pool->left, pool->n - 1);
    publish(pool);
    fn(arg, 0, pool->n);
    int polls = 0;
    while (atomic_load(&pool->left) > 0 && ++polls < SPIN_POLLS)
        CPU_RELAX();
    if (atomic_load(&pool->left) > 0) {
        pthread_mutex_lock(&pool->mu);
        atomic_store(&pool->waiting, 1);
        while (atomic_load(&pool->left) > 0)
            pthread_cond_wait(&pool->done, &pool->mu);
        atomic_store(&pool->waiting, 0);
        pthread_mutex_unlock(&pool->mu);
    }
}
