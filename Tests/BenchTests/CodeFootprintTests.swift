// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import pathmond_bench

/// The code lines a callgrind dump says were executed, on dumps as callgrind 3.19 writes them: positions and names
/// written out, and compressed (its default).
@Suite struct CodeFootprintTests {
    /// Lines as `--dump-instr=yes --compress-pos=no --compress-strings=no` writes them (taken from a dump of
    /// `pathmond-bench flips`, addresses kept, the rest shortened).
    static let uncompressed = """
        # callgrind format
        version: 1
        positions: instr line
        events: Ir
        summary: 2295636

        ob=/usr/lib/x86_64-linux-gnu/libc.so.6
        fl=./string/../sysdeps/x86_64/multiarch/strlen-avx2.S
        fn=__strlen_avx2
        0x9e9c0 52 3
        0x9e9c4 53 3
        0x9e9fe 60 1
        0x9ea00 61 1
        cfi=./string/./string/strerror_l.c
        cfn=strerror_l
        calls=1 0x9e9e0 38
        0x9f0c0 24 572
        0x9e9db 24 1

        ob=/tmp/foot/pathmond
        fl=???
        fn=$s7Netlink13KernelWatcherC5drain33_CA2AFC473BE29BFFA62D6BD538FF4BD7LLyyF
        0x9e9c0 0 7
        0x2a0bf0 0 2
        """

    @Test func countsEachLineOncePerObject() throws {
        let footprint = try #require(CodeFootprint(callgrindDump: Substring(Self.uncompressed)))
        // libc: 0x9e9c0, 0x9e9c4, 0x9e9db and 0x9e9fe are in the line 0x9e9c0-0x9e9ff; 0x9ea00 starts the next.
        // The call's cost, at 0x9f0c0, is no instruction: not counted.
        #expect(footprint.linesByObject["/usr/lib/x86_64-linux-gnu/libc.so.6"] == 2)
        // The same address in another object is another line.
        #expect(footprint.linesByObject["/tmp/foot/pathmond"] == 2)
        #expect(footprint.lines == 4)
        #expect(footprint.bytes == 256)
    }

    /// Callgrind's default: a name given once with its id (where a call names the object first, in `cob=`), then
    /// the id alone; positions relative to the last.
    @Test func readsCompressedNamesAndPositions() throws {
        let dump = """
            positions: instr
            events: Ir
            ob=(1) /usr/lib/libc.so.6
            fn=(1) memcpy
            0x1000 4
            +8 1
            * 2
            +0x40 1
            cob=(2) /usr/sbin/pathmond
            cfn=(2) main
            calls=1 0x1000
            +0x10 5
            ob=(2)
            fn=(2)
            0x1000 3
            calls=1 0x5000
            +0x4000 9
            -0x3ff0 1
            ob=(1)
            fn=(1)
            +0x100 1
            """
        let footprint = try #require(CodeFootprint(callgrindDump: Substring(dump)))
        // libc: 0x1000 and 0x1008 (one line), 0x1048 (the next), then, back in libc, 0x1010 + 0x100: a relative
        // position counts from the last one read, whatever object that was in.
        #expect(footprint.linesByObject["/usr/lib/libc.so.6"] == 3)
        // pathmond: 0x1000; the call's cost at 0x5000 moves the position but is no instruction; 0x1010 shares
        // 0x1000's line.
        #expect(footprint.linesByObject["/usr/sbin/pathmond"] == 1)
        #expect(footprint.lines == 4)
    }

    /// Without `--dump-instr=yes` positions are source lines: there is no footprint to read.
    @Test func saysNothingWithoutAddresses() {
        let dump = """
            positions: line
            events: Ir
            ob=/usr/sbin/pathmond
            fn=main
            12 400
            """
        #expect(CodeFootprint(callgrindDump: Substring(dump)) == nil)
    }

    /// A line that is no cost line (a comment, a total, a file name) changes nothing.
    @Test func skipsWhatIsNotACostLine() throws {
        let dump = """
            positions: instr
            ob=/a
            # a comment
            totals: 7
            fl=???
            0x10 7
            """
        let footprint = try #require(CodeFootprint(callgrindDump: Substring(dump)))
        #expect(footprint.lines == 1)
    }
}
