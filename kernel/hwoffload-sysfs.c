// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload sysfs, in /sys/bus/pci/devices/DEVICE/hwoffload/, in bytes, for the auto drivers:
 *
 *   threshold_NAME	every row of HWOFFLOAD_ALGS(): the largest request sent by PIO, larger
 *			ones by DMA (for a hash, the bytes one engine request hashes: buffered
 *			ones included; for an AEAD, AAD and data)
 *   software_NAME_encrypt, software_NAME_decrypt
 *			the AES rows: the largest request handed to the software tier (hwoffload.h,
 *			"Software tier"), measured as threshold_NAME; 0 (the default): none
 *   software_NAME	the hash rows (NAME and hmac(NAME)): the largest message so handed, the
 *			same way
 */
#include <linux/device.h>
#include <linux/sysfs.h>

#include "hwoffload.h"

struct hwoffload_threshold_attr {
	struct device_attribute attr;
	size_t offset;			/* of its value in struct hwoffload_dev */
	unsigned int max;
};

static unsigned int *hwoffload_threshold_of(struct device *dev, struct device_attribute *attr)
{
	const struct hwoffload_threshold_attr *t =
		container_of(attr, struct hwoffload_threshold_attr, attr);

	return (unsigned int *)((char *)dev_get_drvdata(dev) + t->offset);
}

static ssize_t hwoffload_threshold_show(struct device *dev, struct device_attribute *attr,
					char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(*hwoffload_threshold_of(dev, attr)));
}

static ssize_t hwoffload_threshold_store(struct device *dev, struct device_attribute *attr,
					 const char *buf, size_t count)
{
	unsigned int val;
	int ret = kstrtouint(buf, 0, &val);

	if (ret)
		return ret;
	if (val > container_of(attr, struct hwoffload_threshold_attr, attr)->max)
		return -EINVAL;
	WRITE_ONCE(*hwoffload_threshold_of(dev, attr), val);
	return count;
}

#define HWOFFLOAD_THRESHOLD_ATTR(attr_name, field, max_len)				\
	static struct hwoffload_threshold_attr hwoffload_attr_##attr_name = {		\
		__ATTR(attr_name, 0644, hwoffload_threshold_show,			\
		       hwoffload_threshold_store),					\
		offsetof(struct hwoffload_dev, field), max_len				\
	};
#define HWOFFLOAD_SOFTWARE_ATTRS(name)							\
	HWOFFLOAD_THRESHOLD_ATTR(software_##name##_encrypt,				\
				 software[HWOFFLOAD_ALG_##name][HWOFFLOAD_TIER_ENCRYPT], UINT_MAX) \
	HWOFFLOAD_THRESHOLD_ATTR(software_##name##_decrypt,				\
				 software[HWOFFLOAD_ALG_##name][HWOFFLOAD_TIER_DECRYPT], UINT_MAX)
#define HWOFFLOAD_THRESHOLD_SKCIPHER(name, ...)						\
	HWOFFLOAD_THRESHOLD_ATTR(threshold_##name, threshold[HWOFFLOAD_ALG_##name], UINT_MAX) \
	HWOFFLOAD_SOFTWARE_ATTRS(name)
#define HWOFFLOAD_THRESHOLD_HASH(name, ...)						\
	HWOFFLOAD_THRESHOLD_ATTR(threshold_##name, threshold[HWOFFLOAD_ALG_##name], UINT_MAX) \
	HWOFFLOAD_THRESHOLD_ATTR(software_##name,					\
				 software[HWOFFLOAD_ALG_##name][HWOFFLOAD_TIER_ENCRYPT], UINT_MAX)
/* PIO does not split an AEAD message: the auto driver sends only those that fit the FIFO */
#define HWOFFLOAD_THRESHOLD_AEAD(name, ...)						\
	HWOFFLOAD_THRESHOLD_ATTR(threshold_##name, threshold[HWOFFLOAD_ALG_##name],	\
				 HWE_FIFO_DEPTH)					\
	HWOFFLOAD_SOFTWARE_ATTRS(name)

HWOFFLOAD_ALGS(HWOFFLOAD_THRESHOLD_SKCIPHER, HWOFFLOAD_THRESHOLD_HASH, HWOFFLOAD_THRESHOLD_AEAD)

#define HWOFFLOAD_ATTR_ENTRY(attr_name)	&hwoffload_attr_##attr_name.attr.attr,
#define HWOFFLOAD_THRESHOLD_HASH_ENTRIES(name, ...)					\
	HWOFFLOAD_ATTR_ENTRY(threshold_##name)						\
	HWOFFLOAD_ATTR_ENTRY(software_##name)
#define HWOFFLOAD_THRESHOLD_AES_ENTRIES(name, ...)					\
	HWOFFLOAD_ATTR_ENTRY(threshold_##name)						\
	HWOFFLOAD_ATTR_ENTRY(software_##name##_encrypt)					\
	HWOFFLOAD_ATTR_ENTRY(software_##name##_decrypt)

static struct attribute *hwoffload_attrs[] = {
	HWOFFLOAD_ALGS(HWOFFLOAD_THRESHOLD_AES_ENTRIES, HWOFFLOAD_THRESHOLD_HASH_ENTRIES,
		       HWOFFLOAD_THRESHOLD_AES_ENTRIES)
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
