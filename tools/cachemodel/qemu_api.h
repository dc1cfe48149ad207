/*
 * qemu_api.h - Quarry's own declarations of the part of QEMU's TCG plugin
 * interface Quarry's plugins use (the cache model, tools/coherence), as QEMU 7.2 defines it (plugin API
 * version 1; Debian 12's qemu-system-* export these symbols but ship no
 * header).
 *
 * QEMU reads the int `qemu_plugin_version` from the plugin before anything
 * else and refuses a plugin whose version is above the newest it knows or
 * below the oldest it still supports: "Could not load plugin X: plugin
 * requires API version N, but this QEMU supports only up to version M".
 * A plugin without the symbol is refused too ("plugin does not declare API
 * version"). Then it calls qemu_plugin_install(); a non-zero return makes
 * QEMU stop with an error.
 *
 * Only what is declared here may be called; the functions are resolved from
 * the QEMU binary when it dlopen()s the plugin.
 */
#ifndef CACHEMODEL_QEMU_API_H
#define CACHEMODEL_QEMU_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The plugin interface level this file describes (QEMU 7.2). */
#define CACHEMODEL_QEMU_API 1

#define CM_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;

/* What QEMU tells the plugin about itself at install time. */
typedef struct {
	const char *target_name;	/* "x86_64", "aarch64", ... */
	struct {
		int min;		/* oldest plugin API level accepted */
		int cur;		/* newest plugin API level known */
	} version;
	bool system_emulation;		/* false under qemu-user */
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

/* Opaque handles, valid only inside the callback that received them. */
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_plugin_hwaddr;

/* A packed description of one memory access (size, sign, store, ...). */
typedef uint32_t qemu_plugin_meminfo_t;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};

/* Operations QEMU inlines into the translated code (no call). */
enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,	/* *ptr += imm */
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_simple_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *userdata);

/* Provided by the plugin. */
extern CM_EXPORT int qemu_plugin_version;
CM_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
				  char **argv);

/* Provided by QEMU. */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
				      void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
				    void *userdata);

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
/* The name of the function an instruction is in, from the guest binary's symbols, or NULL. */
const char *qemu_plugin_insn_symbol(const struct qemu_plugin_insn *insn);

bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
/* log2 of the access's size in bytes. */
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info, uint64_t vaddr);
bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *haddr);
uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *haddr);

void qemu_plugin_outs(const char *string);

/* qemu-user only: the guest program's path, and where its code was loaded. */
const char *qemu_plugin_path_to_binary(void);
uint64_t qemu_plugin_start_code(void);
uint64_t qemu_plugin_end_code(void);

#endif
