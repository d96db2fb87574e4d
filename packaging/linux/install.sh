#!/bin/sh
# Install Memory Curator for the current user, from the unpacked archive this script sits in:
#   the app folder   -> ~/.local/opt/memory-curator
#   the command      -> ~/.local/bin/memory-curator (a link)
#   launcher, icons, metainfo -> ~/.local/share/{applications,icons/hicolor,metainfo}
# Nothing needs root. PREFIX=/some/where ./install.sh installs under another prefix;
# ./install.sh --uninstall removes what it put there (your vault is never touched).
set -eu

APP_ID=io.github.memorycurator.MemoryCurator
PREFIX="${PREFIX:-$HOME/.local}"
DEST="$PREFIX/opt/memory-curator"
HERE=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
SHARE="$PREFIX/share"
SIZES="16 32 48 64 128 256 512"

refresh_caches() {
    # Desktops pick up new launchers and icons without these, only later; ignore their absence.
    update-desktop-database -q "$SHARE/applications" 2>/dev/null || true
    # Refresh an icon cache only where one exists: creating one in a user's folder can hide icons that other
    # programs add later without refreshing it.
    if [ -f "$SHARE/icons/hicolor/icon-theme.cache" ]; then
        gtk-update-icon-cache -q -t -f "$SHARE/icons/hicolor" 2>/dev/null || true
    else
        touch "$SHARE/icons/hicolor" 2>/dev/null || true
    fi
}

deb_package() {
    # Debian's name for the package of a library: libfoo.so.1 -> libfoo1, libfoo-2.so.0 -> libfoo-2-0.
    case "$1" in
        libglib-2.0.so.*|libgthread-2.0.so.*|libgobject-2.0.so.*) echo libglib2.0-0; return ;;
        libgcc_s.so.1) echo libgcc-s1; return ;;
        libstdc++.so.6) echo libstdc++6; return ;;
    esac
    name=${1%%.so*}; version=${1#*.so.}; version=${version%%.*}
    case "$name" in *[0-9]) name="$name-" ;; esac
    echo "$name$version" | tr '[:upper:]' '[:lower:]'
}

check_system_libraries() {
    # Qt's X11 plugin needs XCB libraries that not every desktop has (libxcb-cursor0 since Qt 6.5). Without
    # them Qt only says it "could not load the Qt platform plugin", so name the command that installs them.
    plugin=$(find "$DEST" -path '*/platforms/libqxcb.so' 2>/dev/null | head -n 1)
    [ -n "$plugin" ] && command -v ldd >/dev/null 2>&1 || return 0
    missing=$(ldd "$plugin" 2>/dev/null | awk '$2 == "=>" && $3 == "not" { print $1 }' | grep -v '^libQt' \
        | sort -u | tr '\n' ' ')
    [ -n "$missing" ] || return 0
    if command -v apt-get >/dev/null 2>&1; then
        cmd="sudo apt install $(for lib in $missing; do deb_package "$lib"; done | sort -u | tr '\n' ' ')"
    elif command -v dnf >/dev/null 2>&1 || command -v zypper >/dev/null 2>&1; then
        tool=dnf; command -v dnf >/dev/null 2>&1 || tool=zypper
        cmd="sudo $tool install $(for lib in $missing; do printf "'%s()(64bit)' " "$lib"; done)"
    else
        cmd="install the packages that provide: $missing"
    fi
    missing=$(echo $missing); cmd=$(echo $cmd)  # single spaces, none at the end
    echo
    echo "Memory Curator's window needs system libraries that are not installed: $missing"
    echo "Install them with:"
    echo
    echo "    $cmd"
    echo
}

uninstall() {
    rm -rf "$DEST"
    rm -f "$PREFIX/bin/memory-curator" "$SHARE/applications/$APP_ID.desktop" \
        "$SHARE/metainfo/$APP_ID.metainfo.xml" "$SHARE/icons/hicolor/scalable/apps/$APP_ID.svg"
    for size in $SIZES; do
        rm -f "$SHARE/icons/hicolor/${size}x${size}/apps/$APP_ID.png"
    done
    refresh_caches
    echo "Memory Curator removed from $PREFIX. Your vault and settings are kept."
}

case "${1:-}" in
    --uninstall) uninstall; exit 0 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    "") ;;
    *) echo "Unknown option: $1 (use --uninstall or --help)" >&2; exit 2 ;;
esac

if [ ! -x "$HERE/memory-curator" ]; then
    echo "No memory-curator program beside this script: run install.sh from the unpacked archive." >&2
    exit 1
fi

if [ "$HERE" != "$DEST" ]; then
    rm -rf "$DEST"
    mkdir -p "$DEST"
    cp -R "$HERE/." "$DEST/"
fi

mkdir -p "$PREFIX/bin" "$SHARE/applications" "$SHARE/metainfo"
ln -sf "$DEST/memory-curator" "$PREFIX/bin/memory-curator"

# The launcher names the program by its full path: a desktop session's PATH often lacks ~/.local/bin.
sed -e "s|^Exec=memory-curator|Exec=\"$DEST/memory-curator\"|" \
    -e "s|^TryExec=memory-curator|TryExec=$DEST/memory-curator|" \
    "$HERE/share/applications/$APP_ID.desktop" > "$SHARE/applications/$APP_ID.desktop"
cp "$HERE/share/metainfo/$APP_ID.metainfo.xml" "$SHARE/metainfo/"
for dir in "$HERE"/share/icons/hicolor/*/apps; do
    rel=${dir#"$HERE/share/icons/hicolor/"}
    mkdir -p "$SHARE/icons/hicolor/$rel"
    cp "$dir"/* "$SHARE/icons/hicolor/$rel/"
done
refresh_caches
check_system_libraries

echo "Memory Curator installed in $DEST."
echo "Start it from your desktop's application menu, or run: $PREFIX/bin/memory-curator"
