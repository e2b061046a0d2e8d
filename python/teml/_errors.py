"""teml's exceptions."""


class ProgramError(Exception):
    """A wrong free-form program (or an illegal schedule, or a run-time check
    that failed): where and why, as the teml command reports it."""

    def __init__(self, line, column, message, file=None):
        super().__init__(message)
        self.line, self.column, self.message, self.file = line, column, message, file

    def __str__(self):
        where = f"{self.file or '<program>'}:{self.line}:{self.column}" if self.line else (self.file or "<program>")
        return f"{where}: error: {self.message}"


class DeviceUnavailable(RuntimeError):
    """This machine cannot run the program: no CUDA driver, no GPU, or no CUDA
    compiler (the teml command's exit status 4). The message says which."""
