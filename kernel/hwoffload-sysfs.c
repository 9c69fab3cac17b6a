// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload sysfs, in /sys/bus/pci/devices/DEVICE/hwoffload/: threshold_NAME for every row of
 * HWOFFLOAD_ALGS(), in bytes, the largest request the auto driver sends by PIO (for a hash, the
 * bytes one engine request hashes: buffered ones included; for an AEAD, AAD and data).
 */
#include <linux/device.h>
#include <linux/sysfs.h>

#include "hwoffload.h"

struct hwoffload_threshold_attr {
	struct device_attribute attr;
	enum hwoffload_alg_id alg;
	unsigned int max;
};

static const struct hwoffload_threshold_attr *hwoffload_threshold_of(struct device_attribute *attr)
{
	return container_of(attr, struct hwoffload_threshold_attr, attr);
}

static ssize_t hwoffload_threshold_show(struct device *dev, struct device_attribute *attr,
					char *buf)
{
	struct hwoffload_dev *hw = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(hw->threshold[hwoffload_threshold_of(attr)->alg]));
}

static ssize_t hwoffload_threshold_store(struct device *dev, struct device_attribute *attr,
					 const char *buf, size_t count)
{
	const struct hwoffload_threshold_attr *t = hwoffload_threshold_of(attr);
	struct hwoffload_dev *hw = dev_get_drvdata(dev);
	unsigned int val;
	int ret = kstrtouint(buf, 0, &val);

	if (ret)
		return ret;
	if (val > t->max)
		return -EINVAL;
	WRITE_ONCE(hw->threshold[t->alg], val);
	return count;
}

#define HWOFFLOAD_THRESHOLD_ATTR(name, max_len)						\
	static struct hwoffload_threshold_attr hwoffload_attr_threshold_##name = {	\
		__ATTR(threshold_##name, 0644, hwoffload_threshold_show,		\
		       hwoffload_threshold_store),					\
		HWOFFLOAD_ALG_##name, max_len						\
	};
#define HWOFFLOAD_THRESHOLD_ANY(name, ...)	HWOFFLOAD_THRESHOLD_ATTR(name, UINT_MAX)
/* PIO does not split an AEAD message: the auto driver sends only those that fit the FIFO */
#define HWOFFLOAD_THRESHOLD_FIFO(name, ...)	HWOFFLOAD_THRESHOLD_ATTR(name, HWE_FIFO_DEPTH)

HWOFFLOAD_ALGS(HWOFFLOAD_THRESHOLD_ANY, HWOFFLOAD_THRESHOLD_ANY, HWOFFLOAD_THRESHOLD_FIFO)

#define HWOFFLOAD_THRESHOLD_ENTRY(name, ...)	&hwoffload_attr_threshold_##name.attr.attr,

static struct attribute *hwoffload_attrs[] = {
	HWOFFLOAD_ALGS(HWOFFLOAD_THRESHOLD_ENTRY, HWOFFLOAD_THRESHOLD_ENTRY,
		       HWOFFLOAD_THRESHOLD_ENTRY)
	NULL
};

static const struct attribute_group hwoffload_attr_group = {
	.name = HWOFFLOAD_DRIVER_NAME,
	.attrs = hwoffload_attrs,
};

const struct attribute_group *hwoffload_attr_groups[] = {
	&hwoffload_attr_group,
	NULL
};
