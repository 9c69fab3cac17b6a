/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ivshmem_server.h - the server side of QEMU's ivshmem protocol (docs/specs/ivshmem-spec.rst),
 * for exactly one QEMU, which is peer 0; the engine is peer HWEMU_ENGINE_PEER_ID.
 */
#ifndef HWEMU_IVSHMEM_SERVER_H
#define HWEMU_IVSHMEM_SERVER_H

/* Listen on @path, removing a stale socket file first. Returns the fd, or -1 (reported). */
int hwemu_ivshm_listen(const char *path);

/*
 * Send a freshly accepted QEMU, in the order QEMU 7.2 needs: protocol version 0, its peer
 * id 0, the shared memory @shm_fd, the engine's doorbell eventfds @engine_fds, then QEMU's
 * own interrupt eventfds @qemu_fds (one per vector each). Returns 0, or -1 (reported).
 */
int hwemu_ivshm_send_setup(int conn, int shm_fd, const int *engine_fds, const int *qemu_fds,
			   unsigned int vectors);

/*
 * The connection polled readable: 0 if QEMU hung up, 1 if it is still there with nothing
 * to read, -1 (reported) if it sent data, which the protocol does not allow.
 */
int hwemu_ivshm_check_hangup(int conn_fd);

#endif /* HWEMU_IVSHMEM_SERVER_H */
