; Inno Setup script: wraps the PyInstaller one-folder build (dist\memory-curator) into a per-user installer.
;   iscc /DAppVersion=0.1.0 packaging\windows\memory-curator.iss
; AppVersion comes from memory_curator.__version__ (see README.md beside this file).

#ifndef AppVersion
  #error Pass the version: iscc /DAppVersion=X.Y.Z (from memory_curator.__version__)
#endif

[Setup]
AppId={{6F0B1C52-3E0A-4B7E-9C1D-0A6E3D5B8F21}
AppName=Memory Curator
AppVersion={#AppVersion}
AppPublisher=The Memory Curator developers
DefaultDirName={autopf}\Memory Curator
DefaultGroupName=Memory Curator
; Per-user by default (no administrator rights needed); the dialog lets an administrator install for everyone.
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=MemoryCurator-{#AppVersion}-setup
SetupIconFile=..\..\resources\icons\memory-curator.ico
UninstallDisplayIcon={app}\Memory Curator.exe
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; Flags: unchecked

[Files]
Source: "..\..\dist\memory-curator\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\Memory Curator"; Filename: "{app}\Memory Curator.exe"
Name: "{group}\Uninstall Memory Curator"; Filename: "{uninstallexe}"
Name: "{autodesktop}\Memory Curator"; Filename: "{app}\Memory Curator.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\Memory Curator.exe"; Description: "{cm:LaunchProgram,Memory Curator}"; Flags: nowait postinstall skipifsilent
