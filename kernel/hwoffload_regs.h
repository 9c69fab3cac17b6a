/* SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0 */
/*
 * hwoffload_regs.h - programming model of the hwoffload crypto engine.
 *
 * Shared by the guest driver (hwoffload.ko) and the emulated engine (emulator/).
 * kernel/ENGINE.md is the prose description; this header is the authority on numbers.
 *
 * All multi-byte values are little-endian. Register offsets are relative to BAR2.
 * Only the ivshmem Doorbell register in BAR0 traps: every action is "write BAR2, then ring".
 */
#ifndef HWOFFLOAD_REGS_H
#define HWOFFLOAD_REGS_H

#include <linux/types.h>

#define HWE_BIT(n)			(1U << (n))

/* ---- BAR2 geometry ---- */
#define HWE_BAR2_SIZE			0x4000	/* power of two, as a PCI BAR must be */
#define HWE_FIFO_IN			0x1000	/* PIO input window (driver writes) */
#define HWE_FIFO_OUT			0x2000	/* PIO output window (engine writes) */
#define HWE_FIFO_DEPTH			4096	/* bytes per PIO request, each window */

/* ---- ivshmem doorbell vectors (guest -> engine), BAR0 Doorbell = peer << 16 | vector ---- */
#define HWE_DB_DMA			0	/* ring advanced: walk CUR .. HEAD */
#define HWE_DB_PIO			1	/* PIO request posted (PIO_SEQ advanced) */
#define HWE_MIN_VECTORS			2
#define HWE_MAX_VECTORS			16

/* ---- MSI-X vectors (engine -> guest) ---- */
#define HWE_MSIX_DMA			0	/* INT_DMA_DONE, INT_DMA_ERROR */
#define HWE_MSIX_PIO			1	/* INT_PIO_DONE, if enabled: PIO usually polls */

/* ---- identification (engine writes once at start; read-only for the driver) ---- */
#define HWE_REG_ID			0x000
#define  HWE_ID_MAGIC			0x464f5748	/* "HWOF" as bytes in memory */
#define HWE_REG_VERSION			0x004
#define  HWE_VERSION_MAJOR		1
#define  HWE_VERSION_MINOR		0
#define  HWE_VERSION			(HWE_VERSION_MAJOR << 16 | HWE_VERSION_MINOR)
#define HWE_REG_CAPS			0x008
#define  HWE_CAP_AES_ECB		HWE_BIT(0)
#define  HWE_CAP_AES_CBC		HWE_BIT(1)
#define  HWE_CAP_AES_CTR		HWE_BIT(2)
#define  HWE_CAP_AES_GCM		HWE_BIT(3)	/* mode HWE_MODE_GCM, ENGINE.md section 12 */
#define  HWE_CAP_PIO			HWE_BIT(8)
#define  HWE_CAP_DMA			HWE_BIT(9)
#define  HWE_CAP_HASH			HWE_BIT(16)	/* MD5, SHA-1, SHA-224/256/384/512 */
#define  HWE_CAP_FAULT_INJECTION	HWE_BIT(31)	/* model-only registers present */
#define HWE_REG_PEER_ID			0x00c	/* engine's ivshmem peer id, for the doorbell */
#define HWE_REG_NUM_VECTORS		0x010
#define HWE_REG_FIFO_DEPTH		0x014
#define HWE_REG_DMA_ALIGN		0x018	/* bytes; DMA addresses and lengths */
#define HWE_REG_DMA_MAX_LEN		0x01c	/* bytes per data descriptor */
#define HWE_REG_RAM_SIZE		0x020	/* 64-bit: highest DMA address + 1 */
#define HWE_REG_RING_MAX		0x028	/* max descriptors in the ring */
#define HWE_REG_PIO_SETUP_NS		0x030	/* timing model, see ENGINE.md */
#define HWE_REG_PIO_PS_PER_BYTE		0x034
#define HWE_REG_DMA_SETUP_NS		0x038
#define HWE_REG_DMA_PS_PER_BYTE		0x03c

/* ---- control and status ---- */
#define HWE_REG_CTRL			0x100	/* driver */
#define  HWE_CTRL_RESET			HWE_BIT(0)	/* self-clearing: engine clears when done */
#define HWE_REG_STATUS			0x104	/* engine */
#define  HWE_STATUS_PIO_BUSY		HWE_BIT(0)
#define  HWE_STATUS_DMA_BUSY		HWE_BIT(1)
#define  HWE_STATUS_RING_VALID		HWE_BIT(2)	/* ring latched at the last reset */
#define  HWE_STATUS_DMA_HALTED		HWE_BIT(3)	/* ring error: reset to recover */
#define HWE_REG_INT_STATUS		0x108	/* engine: atomic OR; driver W1C: atomic AND-NOT */
#define HWE_REG_INT_ENABLE		0x10c	/* driver */
#define  HWE_INT_DMA_DONE		HWE_BIT(0)
#define  HWE_INT_DMA_ERROR		HWE_BIT(1)
#define  HWE_INT_PIO_DONE		HWE_BIT(2)
#define HWE_REG_ERR_STATUS		0x110	/* W1C like INT_STATUS: HWE_BIT(enum hwe_err) */
#define HWE_REG_LAST_ERROR		0x114	/* engine: enum hwe_err of the latest error */
#define HWE_REG_LAST_ERROR_ADDR		0x118	/* engine, 64-bit: address involved, if any */

/* Error codes: in PIO_RESULT, descriptor status, LAST_ERROR; bit n of ERR_STATUS. */
enum hwe_err {
	HWE_ERR_NONE = 0,
	HWE_ERR_BAD_ADDR = 1,		/* address range outside guest RAM */
	HWE_ERR_MISALIGNED = 2,		/* DMA address or length not a multiple of DMA_ALIGN */
	HWE_ERR_BAD_LEN = 3,		/* zero, too long, or not whole blocks for ECB/CBC */
	HWE_ERR_BAD_CTX = 4,		/* unknown mode/unit, bad key length or CTR offset */
	HWE_ERR_NO_CTX = 5,		/* DATA descriptor without LOAD_CTX in its request */
	HWE_ERR_BAD_DESC = 6,		/* unknown descriptor type, or hash DATA with a dst */
	HWE_ERR_DMA_FAULT = 7,		/* bus error (injected) */
	HWE_ERR_FIFO = 8,		/* FIFO overflow/overrun (or injected) */
	HWE_ERR_RING = 9,		/* bad ring base/size, or HEAD more than a ring ahead */
	HWE_ERR_ABORTED = 10,		/* an earlier descriptor of this request failed */
	HWE_ERR_TAG_MISMATCH = 11,	/* GCM decrypt: tag differs; a result, not a fault */
	HWE_ERR_COUNT
};

/* ---- AES context for PIO (a DMA request carries its own, struct hwe_aes_ctx) ---- */
#define HWE_REG_AES_CFG			0x200	/* HWE_CFG_* */
#define HWE_REG_AES_CTR_OFFSET		0x204	/* CTR: keystream bytes used of block IV-1 */
#define HWE_REG_AES_IV			0x210	/* 16 bytes; written back after each request */
#define HWE_REG_AES_KEY			0x220	/* 32 bytes; the engine never writes it */

#define HWE_CFG_MODE_MASK		0x0000000f
#define  HWE_MODE_ECB			1
#define  HWE_MODE_CBC			2
#define  HWE_MODE_CTR			3
#define  HWE_MODE_GCM			4	/* context: HWE_REG_GCM_* or struct hwe_gcm_ctx */
#define HWE_CFG_DECRYPT			HWE_BIT(4)
#define HWE_CFG_KEYLEN_SHIFT		8	/* key length in bytes: 16, 24 or 32 */
#define HWE_CFG_KEYLEN_MASK		0x0000ff00
#define HWE_CFG_UNIT_SHIFT		28
#define HWE_CFG_UNIT_MASK		0xf0000000
#define  HWE_UNIT_AES			0
#define  HWE_UNIT_HASH			1	/* hash context: HWE_HASH_* below */
#define HWE_CFG(unit, mode, keylen, decrypt)					\
	((unit) << HWE_CFG_UNIT_SHIFT | (keylen) << HWE_CFG_KEYLEN_SHIFT |	\
	 (mode) | ((decrypt) ? HWE_CFG_DECRYPT : 0))

/* ---- PIO: ownership of 0x200..0x27f and the FIFO windows passes with PIO_SEQ ---- */
#define HWE_REG_PIO_SEQ			0x240	/* driver: bump to post a request */
#define HWE_REG_PIO_DONE_SEQ		0x244	/* engine: = PIO_SEQ when finished (poll this) */
#define HWE_REG_PIO_RESULT		0x248	/* engine: enum hwe_err of that request */
#define HWE_REG_FIFO_IN_LEVEL		0x24c	/* driver fills, engine drains to 0 */
#define HWE_REG_FIFO_OUT_LEVEL		0x250	/* engine fills, driver drains to 0 */
#define HWE_REG_PIO_UNIT		0x254	/* driver: HWE_UNIT_* the request is for */

/*
 * ---- GCM context for PIO, beside AES_CFG, AES_KEY and the first 12 bytes of AES_IV ----
 * (a DMA request carries its own, struct hwe_gcm_ctx; see ENGINE.md "GCM mode")
 */
#define HWE_REG_GCM_BASE     0x260
#define HWE_REG_GCM_END	     0x280
#define HWE_REG_GCM_AAD_LEN  0x260 /* bytes of AAD at the start of the input */
#define HWE_REG_GCM_DATA_LEN 0x264 /* bytes of data after the AAD */
#define HWE_REG_GCM_TAG_LEN  0x268 /* bytes a decrypt compares: 4, 8 or 12..16 */
#define HWE_REG_GCM_TAG	     0x270 /* 16 bytes: encrypt: engine; decrypt: driver */
#define HWE_GCM_IV_SIZE	     12 /* 96-bit IVs only: J0 = IV || 0^31 || 1 */
#define HWE_GCM_TAG_SIZE     16

/* ---- DMA descriptor ring ---- */
#define HWE_REG_RING_BASE		0x300	/* driver, 64-bit GPA, HWE_RING_ALIGN aligned */
#define HWE_REG_RING_SIZE		0x308	/* driver: entries, power of 2; latched at reset */
#define HWE_REG_RING_HEAD		0x30c	/* driver: free-running count of published descs */
#define HWE_REG_RING_CUR		0x310	/* engine: free-running count of finished descs */
#define HWE_REG_RING_CUR_ADDR		0x318	/* engine, 64-bit: GPA of descriptor CUR */
#define HWE_RING_ALIGN			64
#define HWE_RING_MAX_ENTRIES		4096
#define HWE_DMA_ALIGN			16	/* one burst = one AES block */
#define HWE_DMA_MAX_LEN			(1U << 24)

/* ---- hash unit: 0x400..0x5ff, the PIO hash context (see ENGINE.md "Hash unit") ---- */
#define HWE_REG_HASH_BASE		0x400
#define HWE_REG_HASH_END		0x600
#define HWE_REG_HASH_CFG		0x400	/* HWE_CFG(HWE_UNIT_HASH, alg, 0, 0) | flags */
#define HWE_REG_HASH_LEN_LO		0x408	/* 64-bit: bytes hashed so far, low half */
#define HWE_REG_HASH_LEN_HI		0x410	/* 64-bit: high half (128-bit counter) */
#define HWE_REG_HASH_STATE		0x440	/* 64 bytes: chaining state; digest after FINAL */
#define HWE_REG_HASH_DIGEST		HWE_REG_HASH_STATE

#define HWE_HASH_MD5			1	/* in the HWE_CFG_MODE_MASK field */
#define HWE_HASH_SHA1			2
#define HWE_HASH_SHA224			3
#define HWE_HASH_SHA256			4
#define HWE_HASH_SHA384			5
#define HWE_HASH_SHA512			6
#define HWE_HASH_INIT			HWE_BIT(8)	/* start from the standard IV, length 0 */
#define HWE_HASH_FINAL			HWE_BIT(9)	/* pad, and leave the digest in the state */
#define HWE_HASH_STATE_SIZE		64
#define HWE_HASH_BLOCK_MAX		128	/* 64 for MD5, SHA-1, SHA-224/256 */

/* ---- counters: engine, 64-bit, never reset (debugging) ---- */
#define HWE_REG_CNT_DOORBELLS		0x600
#define HWE_REG_CNT_PIO_REQUESTS	0x608
#define HWE_REG_CNT_PIO_BYTES		0x610
#define HWE_REG_CNT_PIO_IRQS		0x618
#define HWE_REG_CNT_DMA_REQUESTS	0x620
#define HWE_REG_CNT_DMA_BYTES		0x628
#define HWE_REG_CNT_DMA_DESCS		0x630
#define HWE_REG_CNT_DMA_IRQS		0x638
#define HWE_REG_CNT_IRQS_LOST		0x640	/* interrupts swallowed by FAULT_LOST_IRQ */
#define HWE_REG_CNT_ERRORS		0x648
#define HWE_REG_CNT_RESETS		0x650
#define HWE_REG_CNT_PIO_BUSY_NS		0x658	/* engine time on PIO requests, ns */
#define HWE_REG_CNT_DMA_BUSY_NS		0x660	/* engine time on DMA requests, ns */
#define HWE_REG_CNT_TAG_MISMATCHES	0x668	/* GCM decrypts refused by their tag */

/*
 * ---- model-only fault injection: the driver writes a count, the engine consumes it ----
 * (atomically, one per event). Not present on real hardware (HWE_CAP_FAULT_INJECTION).
 */
#define HWE_REG_FAULT_DMA_ERROR		0x700	/* fail the next N DMA requests (DMA_FAULT) */
#define HWE_REG_FAULT_STALL		0x704	/* N != 0: next PIO or DMA request hangs to reset */
#define HWE_REG_FAULT_LOST_IRQ		0x708	/* drop the next N MSI-X messages */
#define HWE_REG_FAULT_FIFO_ERROR	0x70c	/* fail the next N PIO requests (FIFO) */

/* ---- descriptor (32 bytes, in guest RAM, ring slot = index & (RING_SIZE - 1)) ---- */
struct hwe_desc {
	__le64 src;		/* DATA: source GPA; LOAD_CTX: GPA of the context record */
	__le64 dst;		/* DATA: destination GPA (may equal src); 0 for hash */
	__le32 len;		/* DATA: bytes; LOAD_CTX: sizeof(the record): AES, GCM or hash */
	__le32 flags;		/* HWE_DESC_* */
	__le32 status;		/* engine writes HWE_DSTAT_DONE | error when finished */
	__le32 reserved;
};

#define HWE_DESC_TYPE_MASK		0x0000000f
#define  HWE_DESC_DATA			1	/* run the loaded context over src -> dst */
#define  HWE_DESC_LOAD_CTX		2	/* load context record at src */
#define  HWE_DESC_NOP			3
#define HWE_DESC_END_OF_REQ		HWE_BIT(8)	/* write back the context; request done */
#define HWE_DESC_BREAK_CHAIN		HWE_BIT(9)	/* stop after this one and interrupt */

#define HWE_DSTAT_DONE			HWE_BIT(31)
#define HWE_DSTAT_ERR_MASK		0x000000ff

/* ---- per-request AES context record (64 bytes, in guest RAM, 16-byte aligned) ---- */
struct hwe_aes_ctx {
	__le32 cfg;		/* HWE_CFG(HWE_UNIT_AES, mode, keylen, decrypt) */
	__le32 ctr_offset;	/* as HWE_REG_AES_CTR_OFFSET; written back */
	__le32 reserved[2];
	__u8 iv[16];		/* IV / counter; written back at END_OF_REQ */
	__u8 key[32];
};

/* ---- per-request GCM context record (128 bytes, in guest RAM, 16-byte aligned) ---- */
struct hwe_gcm_ctx {
	__le32 cfg; /* HWE_CFG(HWE_UNIT_AES, HWE_MODE_GCM, keylen, decrypt) */
	__le32 tag_len; /* as HWE_REG_GCM_TAG_LEN */
	__le32 aad_len; /* as HWE_REG_GCM_AAD_LEN */
	__le32 data_len; /* as HWE_REG_GCM_DATA_LEN */
	__u8 iv[HWE_GCM_IV_SIZE];
	__le32 reserved;
	__u8 key[32];
	__u8 tag[HWE_GCM_TAG_SIZE]; /* encrypt: written back at END_OF_REQ; decrypt: read */
	__u8 reserved2[48]; /* 0 */
};

/* ---- per-request hash context record (96 bytes, in guest RAM, 16-byte aligned) ---- */
struct hwe_hash_ctx {
	__le32 cfg;		/* as HWE_REG_HASH_CFG; the engine never writes it */
	__le32 reserved[3];
	__le64 len_lo;		/* as HWE_REG_HASH_LEN_LO/HI; written back at END_OF_REQ */
	__le64 len_hi;
	__u8 state[HWE_HASH_STATE_SIZE];	/* written back; the digest after FINAL */
};

#endif /* HWOFFLOAD_REGS_H */
