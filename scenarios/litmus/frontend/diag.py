# SPDX-License-Identifier: MIT
"""One diagnostic form for every stage: FILE:LINE:COL: message."""


class LitmusError(Exception):
    def __init__(self, path, line, col, msg):
        super().__init__(msg)
        self.path, self.line, self.col, self.msg = path, line, col, msg

    def __str__(self):
        return "%s:%d:%d: %s" % (self.path, self.line, self.col, self.msg)
