"""ch00_doctor asks /usr/bin/python3 for torch's version. It must run it isolated (-I, no shell):
a torch.py in the folder the doctor runs from, or on PYTHONPATH, is never executed.

Usage: test_doctor_isolated.py <path to ch00_doctor>"""
import os
import subprocess
import sys
import tempfile


def main():
    doctor = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as here:
        marker = os.path.join(here, "planted-torch-ran")
        with open(os.path.join(here, "torch.py"), "w") as f:
            f.write(f"open({marker!r}, 'w').close()\n__version__ = '0.0.0-planted'\n")
        env = dict(os.environ, PYTHONPATH=here, PYTHONSTARTUP=os.path.join(here, "torch.py"))
        # The planted file may only print: the doctor's own verdict (exit 0/1) is not what is tested.
        run = subprocess.run([doctor], cwd=here, env=env, capture_output=True, text=True, timeout=120)
        out = run.stdout + run.stderr
        if os.path.exists(marker) or "planted" in out:
            print("FAIL: ch00_doctor executed the torch.py of its current folder / PYTHONPATH:\n" + out)
            return 1
        if "PyTorch oracle" not in out:
            print("FAIL: ch00_doctor printed no PyTorch line:\n" + out)
            return 1
        print("ok: the planted torch.py did not run; the doctor said:")
        print("\n".join(line for line in out.splitlines() if "PyTorch" in line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
