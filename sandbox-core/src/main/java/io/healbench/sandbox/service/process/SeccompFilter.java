package io.healbench.sandbox.service.process;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The seccomp program every isolated session runs under (bwrap {@code --seccomp FD}), as classic BPF: the session's
 * unprivileged uid could otherwise still create a user namespace, and inside it gain every capability over a world
 * of its own (mounts, network setup, ...). It also refuses the calls a Python program under test has no need for and
 * that widen the kernel surface: keyrings, eBPF, perf, userfaultfd, io_uring, ptrace and cross-process memory access
 * (a forked probe could otherwise rewrite the paused process), mounts and namespace switching.
 *
 * <p>x86-64 only: syscall numbers are per architecture. Calls through another ABI (i386 {@code int 0x80}, x32) are
 * refused outright, since their numbers would slip past the checks. {@code clone3} passes its flags in memory, which
 * seccomp cannot read, so it fails with ENOSYS and glibc falls back to {@code clone}, whose flags are checked.
 */
final class SeccompFilter {

    static final int AUDIT_ARCH_X86_64 = 0xC000003E;
    static final int X32_SYSCALL_BIT = 0x40000000;
    static final int CLONE_NEWUSER = 0x10000000;
    static final int EPERM = 1;
    static final int ENOSYS = 38;

    static final int NR_CLONE = 56;
    static final int NR_UNSHARE = 272;
    static final int NR_CLONE3 = 435;
    /** Refused with EPERM: ptrace, process_vm_readv/writev, keyctl, add_key, request_key, bpf, perf_event_open,
     *  userfaultfd, io_uring_setup/enter/register, setns, mount, umount2, pivot_root, chroot. */
    static final List<Integer> REFUSED = List.of(101, 310, 311, 250, 248, 249, 321, 298, 323, 425, 426, 427, 308, 165,
            166, 155, 161);

    private static final short LD_W_ABS = 0x20;
    private static final short JEQ_K = 0x15;
    private static final short JGE_K = 0x35;
    private static final short JSET_K = 0x45;
    private static final short RET_K = 0x06;
    private static final int RET_ALLOW = 0x7fff0000;
    private static final int RET_ERRNO = 0x00050000;
    private static final int OFFSET_NR = 0;
    private static final int OFFSET_ARCH = 4;
    private static final int OFFSET_ARG0_LOW = 16;

    private SeccompFilter() {}

    /** The program as bwrap reads it: an array of {@code struct sock_filter} in the machine's byte order. */
    static byte[] program() {
        Assembler asm = new Assembler();
        asm.load(OFFSET_ARCH);
        asm.jump(JEQ_K, AUDIT_ARCH_X86_64, null, "refuse");
        asm.load(OFFSET_NR);
        asm.jump(JGE_K, X32_SYSCALL_BIT, "refuse", null);
        asm.jump(JEQ_K, NR_CLONE3, "nosys", null);
        asm.jump(JEQ_K, NR_UNSHARE, "flags", null);
        asm.jump(JEQ_K, NR_CLONE, "flags", null);
        for (int nr : REFUSED) {
            asm.jump(JEQ_K, nr, "refuse", null);
        }
        asm.ret(RET_ALLOW);
        asm.label("flags");
        asm.load(OFFSET_ARG0_LOW);
        asm.jump(JSET_K, CLONE_NEWUSER, "refuse", null);
        asm.ret(RET_ALLOW);
        asm.label("refuse");
        asm.ret(RET_ERRNO | EPERM);
        asm.label("nosys");
        asm.ret(RET_ERRNO | ENOSYS);
        return asm.bytes();
    }

    /** Straight-line BPF with forward jumps to labels; a null target falls through. */
    private static final class Assembler {
        private record Instruction(short code, String whenTrue, String whenFalse, int k) {}

        private final List<Instruction> code = new ArrayList<>();
        private final Map<String, Integer> labels = new HashMap<>();

        void load(int offset) {
            code.add(new Instruction(LD_W_ABS, null, null, offset));
        }

        void jump(short op, int k, String whenTrue, String whenFalse) {
            code.add(new Instruction(op, whenTrue, whenFalse, k));
        }

        void ret(int action) {
            code.add(new Instruction(RET_K, null, null, action));
        }

        void label(String name) {
            labels.put(name, code.size());
        }

        byte[] bytes() {
            ByteBuffer out = ByteBuffer.allocate(code.size() * 8).order(ByteOrder.nativeOrder());
            for (int pc = 0; pc < code.size(); pc++) {
                Instruction instruction = code.get(pc);
                out.putShort(instruction.code());
                out.put(offset(pc, instruction.whenTrue()));
                out.put(offset(pc, instruction.whenFalse()));
                out.putInt(instruction.k());
            }
            return out.array();
        }

        private byte offset(int pc, String label) {
            if (label == null) {
                return 0;
            }
            int skip = labels.get(label) - pc - 1;
            if (skip < 0 || skip > 255) {
                throw new IllegalStateException("BPF jump to " + label + " out of range: " + skip);
            }
            return (byte) skip;
        }
    }
}
