"""Stage 2's final certification: a node is proved only when Lean's axiom report says so. The
record's head is certified once per head; the nodes Lean contradicts are re-opened, with the
hidden edges it names (harness.orchestrator.certify does the Lean side)."""

from __future__ import annotations

from harness.blueprint import confirmed
from harness.errors import CannotCertify
from harness.orchestrator.certify import contradictions, reopen
from harness.orchestrator.stage2_base import Stage2Base
from harness.workspace import find_workspace


class FinalCertification(Stage2Base):
    def _certify(self) -> bool:
        """Certify the record's head (once per head): re-open the nodes Lean contradicts, with
        the hidden edges it names. True when that gave the scheduler new work."""
        head = self.record.head()
        if self._certified is not None and self._certified[0] == head:
            self.certification = self._certified[1]
            return False
        if self.certifier is None:
            self.certification = "not run"
            self._note("no final certification configured: the run cannot claim any proof")
            return False
        text = self.record.head_text()
        try:
            a = self._analysis()
            self.certifier.targets = [n for k in a.graph.nodes
                                      if a.is_external(k) and not a.is_informal(k)
                                      for n in a.decl(k).names]
            cert = self.certifier.axioms(text)
            bad = contradictions(a, cert)
            imported = {a.decl(k).name: k for k in a.graph.nodes
                        if a.is_external(k) and a.decl(k).name}
            used = self.certifier.used(text, bad, imported) if bad else {}
        except CannotCertify as err:
            self.certification = "cannot certify"
            self._certified = (head, self.certification)
            self._note(f"final certification: {err.line()}")
            return False
        clean = sorted(cert.clean)
        if cert.used:  # Lean's used constants of every node it elaborated: kept for good
            confirmed.record(find_workspace(self.record.file), self.record.file,
                             self.record.parsed(text), cert.used)
        self.log.append("certified", commit=head, clean=clean,
                        dirty={k: ax for k, ax in cert.axioms.items() if k not in cert.clean},
                        errors=cert.errors[:5], contradicted=bad)
        # clean: Lean backs every node the DAG counts as proved (open nodes are the result's
        # business: they keep the exit code at 1)
        status = "contradicted" if bad or cert.errors else "clean"
        self.certification = status
        self._certified = (head, status)
        for r in reopen(a, cert, bad, used):
            self.log.append("reopened", node=r.node, reason=r.reason, culprits=r.culprits,
                            commit=head)
            self.notify("note", {"message": f"re-opened {r.node}: {r.reason}"})
            self._remember(r.node, r.reason)
            if not r.culprits:
                self.blocked[r.node] = r.reason
                self.log.append("blocked", node=r.node, reason=r.reason)
        if not bad:
            return False
        self._sync()
        assert self.sched is not None
        return not self.sched.finished()
