// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload binding: which device the algorithms reach ("Lifetime" in hwoffload.h), the
 * transforms attached to it, its requests in flight, and how a request goes: in its caller or
 * through crypto_engine, by PIO or by DMA.
 */
#include <linux/wait_bit.h>

#include "hwoffload.h"

const struct hwoffload_path_info hwoffload_paths[HWOFFLOAD_PATH_COUNT] = {
	/* DMA may allocate a bounce list per request */
	[HWOFFLOAD_PATH_AUTO] = { "auto", "", 0, 10, CRYPTO_ALG_ALLOCATES_MEMORY },
	[HWOFFLOAD_PATH_DMA] = { "dma", "-dma", 10, 20, CRYPTO_ALG_ALLOCATES_MEMORY },
	[HWOFFLOAD_PATH_PIO] = { "pio", "-pio", 20, 30, 0 },
};

/* The device behind the algorithms, if any; its generation is never 0. */
static DEFINE_MUTEX(hwoffload_bind_lock); /* hwoffload_bound, hwoffload_generation, sessions */
static struct hwoffload_dev __rcu *hwoffload_bound;
static unsigned long hwoffload_generation;

/* Put @hw behind the algorithms. One engine at a time: the algorithms' names are the driver's. */
int hwoffload_bind(struct hwoffload_dev *hw)
{
	atomic_set(&hw->inflight, 0);
	mutex_lock(&hwoffload_bind_lock);
	if (rcu_access_pointer(hwoffload_bound)) {
		mutex_unlock(&hwoffload_bind_lock);
		dev_err(hw->dev, "another engine is bound: one at a time\n");
		return -EBUSY;
	}
	hw->generation = ++hwoffload_generation;
	rcu_assign_pointer(hwoffload_bound, hw);
	mutex_unlock(&hwoffload_bind_lock);
	return 0;
}

/*
 * Take @hw from behind the algorithms: the transforms attached to it lose it (their runtime PM
 * references go back now), requests not started fail with -ENODEV, started ones finish. On
 * return no request uses @hw any more.
 */
void hwoffload_unbind(struct hwoffload_dev *hw)
{
	mutex_lock(&hwoffload_bind_lock);
	RCU_INIT_POINTER(hwoffload_bound, NULL);
	for (; hw->sessions; hw->sessions--)
		pm_runtime_put_noidle(hw->dev);
	mutex_unlock(&hwoffload_bind_lock);
	WRITE_ONCE(hw->unbound, true);
	/* after this, hwoffload_dev_get() no longer returns @hw */
	synchronize_rcu();
	wait_var_event(&hw->inflight, !atomic_read(&hw->inflight));
}

/*
 * A new transform attaches to the bound device, which must have @caps: it holds a runtime PM
 * reference on it until it is freed or the device is unbound. Its requests go to that device
 * only (hwoffload_dev_get).
 */
int hwoffload_tfm_attach(unsigned long *generation, u32 caps)
{
	struct hwoffload_dev *hw;
	int ret = -ENODEV;

	mutex_lock(&hwoffload_bind_lock);
	hw = rcu_dereference_protected(hwoffload_bound, lockdep_is_held(&hwoffload_bind_lock));
	if (hw && (hw->caps & caps) == caps)
		ret = pm_runtime_resume_and_get(hw->dev);
	if (!ret) {
		hw->sessions++;
		*generation = hw->generation;
	}
	mutex_unlock(&hwoffload_bind_lock);
	return ret;
}

/* A transform is freed: its runtime PM reference goes back, unless hwoffload_unbind() took it. */
void hwoffload_tfm_detach(unsigned long generation)
{
	struct hwoffload_dev *hw;

	mutex_lock(&hwoffload_bind_lock);
	hw = rcu_dereference_protected(hwoffload_bound, lockdep_is_held(&hwoffload_bind_lock));
	if (hw && hw->generation == generation) {
		hw->sessions--;
		pm_runtime_mark_last_busy(hw->dev);
		pm_runtime_put_autosuspend(hw->dev);
	}
	mutex_unlock(&hwoffload_bind_lock);
}

/*
 * The device of a transform attached at @generation, for one request until hwoffload_dev_put(),
 * or NULL (-ENODEV) when it is unbound: a device bound since is a new session, which holds no
 * runtime PM reference of the transform's.
 */
struct hwoffload_dev *hwoffload_dev_get(unsigned long generation)
{
	struct hwoffload_dev *hw;

	rcu_read_lock();
	hw = rcu_dereference(hwoffload_bound);
	if (hw && hw->generation == generation)
		atomic_inc(&hw->inflight);
	else
		hw = NULL;
	rcu_read_unlock();
	return hw;
}

/*
 * A request is finalized: after the last, hwoffload_unbind() returns (only @hw's address is
 * used).
 */
void hwoffload_dev_put(struct hwoffload_dev *hw)
{
	if (atomic_dec_and_test(&hw->inflight))
		wake_up_var(&hw->inflight);
}

/*
 * Whether a request on @path runs in its caller (hwoffload.h, "Synchronous requests"), counted
 * in pio_sync or dma_sync: both take hw_lock and may sleep, and a request handed to
 * crypto_engine before it starts first, as in the queue (a caller may chain requests through
 * one IV buffer without waiting for each). DMA also needs a caller that waits for the result
 * anyway: an AIO batch is published from the queue, where its requests chain into one walk.
 */
bool hwoffload_run_sync(struct hwoffload_dev *hw, struct crypto_async_request *base,
			enum hwoffload_path path)
{
	bool dma = path == HWOFFLOAD_PATH_DMA;

	if (!(base->flags & CRYPTO_TFM_REQ_MAY_SLEEP) || (dma && base->complete != crypto_req_done))
		return false;
	/* acquire: what the last queued request wrote (its IV out) before it left the count */
	if (atomic_read_acquire(&hw->queued))
		return false;
	hwoffload_stat_inc(hw, dma ? HWOFFLOAD_STAT_DMA_SYNC : HWOFFLOAD_STAT_PIO_SYNC);
	return true;
}

/* A request of @hw is about to be handed to crypto_engine: queued until it starts. */
void hwoffload_queue_enter(struct hwoffload_dev *hw)
{
	atomic_inc(&hw->queued);
}

/*
 * The hand-off's result @ret, returned: -EINPROGRESS, or -EBUSY (backlogged), and the request
 * is queued; any other and it is neither queued nor in flight.
 */
int hwoffload_queue_result(struct hwoffload_dev *hw, int ret)
{
	if (ret != -EINPROGRESS && ret != -EBUSY) {
		hwoffload_queue_leave(hw);
		hwoffload_dev_put(hw);
	}
	return ret;
}

/*
 * A queued request has started (PIO done, DMA published) or failed to: requests after it may
 * run in their callers again.
 */
void hwoffload_queue_leave(struct hwoffload_dev *hw)
{
	atomic_dec_return_release(&hw->queued);
}

/*
 * The route of one request of @len bytes: a PIO or DMA driver's own path; for an auto driver,
 * its software tier up to the software threshold @tier names (hw->software[@alg][@tier]; 0: no
 * tier), PIO up to the threshold of @alg, DMA above, counted in @auto_software or in the AUTO_PIO
 * or AUTO_DMA statistic that follows it (hwoffload-stats.h); HWOFFLOAD_STAT_COUNT: not counted,
 * the caller counts where the request went (the device may send it another way).
 */
enum hwoffload_path hwoffload_route(struct hwoffload_dev *hw, enum hwoffload_path path,
				    enum hwoffload_alg_id alg, unsigned int len, int tier,
				    enum hwoffload_stat auto_software)
{
	unsigned int software = 0;
	enum hwoffload_stat stat;

	BUILD_BUG_ON(HWOFFLOAD_STAT_AUTO_PIO != HWOFFLOAD_STAT_AUTO_SOFTWARE + 1 ||
		     HWOFFLOAD_STAT_AUTO_DMA != HWOFFLOAD_STAT_AUTO_SOFTWARE + 2 ||
		     HWOFFLOAD_STAT_GCM_AUTO_PIO != HWOFFLOAD_STAT_GCM_AUTO_SOFTWARE + 1 ||
		     HWOFFLOAD_STAT_GCM_AUTO_DMA != HWOFFLOAD_STAT_GCM_AUTO_SOFTWARE + 2 ||
		     HWOFFLOAD_STAT_HASH_AUTO_PIO != HWOFFLOAD_STAT_HASH_AUTO_SOFTWARE + 1 ||
		     HWOFFLOAD_STAT_HASH_AUTO_DMA != HWOFFLOAD_STAT_HASH_AUTO_SOFTWARE + 2);
	if (path != HWOFFLOAD_PATH_AUTO)
		return path;
	if (tier != HWOFFLOAD_TIER_NONE)
		software = READ_ONCE(hw->software[alg][tier]);
	if (software && len <= software) {
		path = HWOFFLOAD_PATH_SOFTWARE;
		stat = auto_software;
	} else if (len <= READ_ONCE(hw->threshold[alg])) {
		path = HWOFFLOAD_PATH_PIO;
		stat = auto_software + 1;
	} else {
		path = HWOFFLOAD_PATH_DMA;
		stat = auto_software + 2;
	}
	if (auto_software != HWOFFLOAD_STAT_COUNT)
		hwoffload_stat_inc(hw, stat);
	return path;
}
