#!/usr/bin/python3
"""ktls.py SECONDS DIR [--plain]

The kTLS phase of scripts/world/workload-guest.sh: a TCP connection on the
loopback (127.0.0.1, which must be up) whose two ends hand TLS 1.2
(AES-128-GCM) to the kernel
(setsockopt TCP_ULP "tls", then TLS_TX on the sender and TLS_RX on the
receiver, with the same key: no handshake is needed for that). For
SECONDS the sender sends a file of DIR with sendfile() and a buffer with
send(); the kernel encrypts them into records, and the receiver's kernel
decrypts them (the crypto walks the socket buffers' page fragments). The
receiver checks every byte. Exit status 0 if all of it came back intact,
1 otherwise (2: the kernel has no kTLS). With --plain, the same transfer
without TLS (the IPsec ESP phase sends it through its SA)."""
import os
import socket
import struct
import sys
import threading
import time

SOL_TLS = 282
TCP_ULP = 31
TLS_TX, TLS_RX = 1, 2
TLS_1_2_VERSION = 0x0303
TLS_CIPHER_AES_GCM_128 = 51


def crypto_info():
    """struct tls12_crypto_info_aes_gcm_128: version, cipher, iv, key, salt, rec_seq"""
    return struct.pack("=HH8s16s4s8s", TLS_1_2_VERSION, TLS_CIPHER_AES_GCM_128,
                       b"kmstlsiv", b"kmapstack tls ke", b"salt", bytes(8))


def to_tls(sock, direction):
    sock.setsockopt(socket.IPPROTO_TCP, TCP_ULP, b"tls")
    sock.setsockopt(SOL_TLS, direction, crypto_info())


def main():
    secs, tmp = int(sys.argv[1]), sys.argv[2]
    plain = sys.argv[3:] == ["--plain"]
    chunk = bytes(range(256)) * 256  # 64 KiB, a known pattern
    path = os.path.join(tmp, "ktls.src")
    with open(path, "wb") as f:
        f.write(chunk * 16)  # 1 MiB
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    snd = socket.create_connection(srv.getsockname())
    rcv, _ = srv.accept()
    try:
        if not plain:
            to_tls(snd, TLS_TX)
            to_tls(rcv, TLS_RX)
    except OSError as e:
        print(f"ktls: the kernel refuses kTLS: {e}")
        return 2
    result = {"bytes": 0, "bad": 0}

    def receive():
        pos = 0
        while True:
            data = rcv.recv(1 << 16)
            if not data:
                break
            for i in range(0, len(data), 4096):
                piece = data[i:i + 4096]
                off = (pos + i) % len(chunk)
                want = (chunk + chunk)[off:off + len(piece)]
                if piece != want:
                    result["bad"] += 1
            pos += len(data)
        result["bytes"] = pos

    t = threading.Thread(target=receive)
    t.start()
    sent, rounds, end = 0, 0, time.monotonic() + secs
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        while time.monotonic() < end:
            off = 0
            while off < size:
                n = os.sendfile(snd.fileno(), f.fileno(), off, size - off)
                off += n
            snd.sendall(chunk)
            sent += size + len(chunk)
            rounds += 1
    snd.shutdown(socket.SHUT_WR)
    t.join()
    snd.close()
    rcv.close()
    print(f"ktls: {'plain TCP' if plain else 'TLS 1.2'}: {rounds} round(s), {sent} byte(s) sent, "
          f"{result['bytes']} received, {result['bad']} bad piece(s)")
    return 0 if result["bytes"] == sent and not result["bad"] and sent else 1


if __name__ == "__main__":
    sys.exit(main())
