# py_imports.py: imports some 60 standard modules, each for the first
# time in a fresh interpreter: the import machinery's Python frames come
# and go by the thousand, each module's body runs once and is freed with
# its strings, and C extension modules are loaded among them (t1066,
# t1069).
import importlib

for m in ("json asyncio decimal unittest sqlite3 ssl ctypes pydoc "
          "email.mime.text http.client xml.etree.ElementTree argparse "
          "logging.handlers csv concurrent.futures multiprocessing tarfile "
          "zipfile shutil tempfile urllib.request http.server smtplib "
          "imaplib ftplib xmlrpc.client difflib inspect dataclasses typing "
          "fractions statistics random pickle shelve dbm calendar "
          "configparser gettext locale socketserver selectors uuid hashlib "
          "hmac secrets base64 plistlib mailbox mimetypes quopri cmd code "
          "codeop pdb profile").split():
    try:
        importlib.import_module(m)
    except ImportError:
        pass
