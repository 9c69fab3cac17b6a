/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ivshmem_server.c - Debian ships no ivshmem-server, so the engine is the server.
 *
 * Each message is a little-endian int64, optionally with one fd (SCM_RIGHTS). QEMU reads the
 * version, its id and the shared memory synchronously while realizing the device: a server
 * that accepts and stays silent hangs QEMU before the BIOS, and QEMU's own vector eventfds
 * sent before the shared memory crash QEMU 7.2. QEMU never sends anything back.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "engine.h"
#include "ivshmem_server.h"

#define IVSHMEM_PROTOCOL_VERSION	0
#define IVSHMEM_QEMU_PEER_ID		0
#define IVSHMEM_SHM_MESSAGE		(-1)

static int send_message(int sock, int64_t value, int fd)
{
	int64_t le = (int64_t)htole64((uint64_t)value);
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cmsg;
	ssize_t n;

	if (fd >= 0) {
		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof(control.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	do {
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(le) ? 0 : -1;
}

int hwemu_ivshm_listen(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "hwoffload-engine: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "hwoffload-engine: socket: %s\n", strerror(errno));
		return -1;
	}
	/* a socket file left by a killed engine makes bind() fail with EADDRINUSE */
	if (unlink(path) < 0 && errno != ENOENT) {
		fprintf(stderr, "hwoffload-engine: removing stale %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(fd, 1) < 0) {
		fprintf(stderr, "hwoffload-engine: listening on %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int hwemu_ivshm_send_setup(int conn, int shm_fd, const int *engine_fds, const int *qemu_fds,
			   unsigned int vectors)
{
	unsigned int v;
	int err;

	err = send_message(conn, IVSHMEM_PROTOCOL_VERSION, -1) ||
	      send_message(conn, IVSHMEM_QEMU_PEER_ID, -1) ||
	      send_message(conn, IVSHMEM_SHM_MESSAGE, shm_fd);
	/* peer "engine connected": its doorbells, which QEMU writes for Doorbell = 1 << 16 | v */
	for (v = 0; v < vectors && !err; v++)
		err = send_message(conn, HWEMU_ENGINE_PEER_ID, engine_fds[v]);
	/* QEMU's own id: its MSI-X vectors, which the engine writes to interrupt the guest */
	for (v = 0; v < vectors && !err; v++)
		err = send_message(conn, IVSHMEM_QEMU_PEER_ID, qemu_fds[v]);
	if (err) {
		fprintf(stderr, "hwoffload-engine: sending the ivshmem setup to QEMU: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

int hwemu_ivshm_check_hangup(int conn_fd)
{
	char byte;
	ssize_t n = recv(conn_fd, &byte, 1, MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno == ECONNRESET))
		return 0;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 1;
	if (n > 0)
		fprintf(stderr, "hwoffload-engine: protocol error: QEMU sent data on the ivshmem socket\n");
	else
		fprintf(stderr, "hwoffload-engine: ivshmem socket: %s\n", strerror(errno));
	return -1;
}
