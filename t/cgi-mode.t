# Kamado::CGI::Mode->for, the one place that decides how a script runs:
# the .kamado-cgi file's mode, else the default; then a script for another
# interpreter (or a program) runs in exec mode, and a perl script with a
# #! switch other than -w and -l runs in fork mode instead of in-process.
# The in-process modes' module (and its overrides of perl's built-ins) is
# loaded only when one of them is chosen.
use strict;
use warnings;
use Test::More;
use File::Temp ();
use Kamado::CGI::Mode;
use Kamado::CGI::ModeFile;

my $root = File::Temp::tempdir(CLEANUP => 1);
mkdir "$root/sub" or die;
sub put {
    my ($name, $content) = @_;
    open my $fh, '>', "$root/$name" or die "$name: $!";
    print $fh $content;
    close $fh;
}
put('plain.cgi', "print 1;\n");
put('w.cgi', "#!/usr/bin/perl -wl\nprint 1;\n");
put('taint.cgi', "#!/usr/bin/perl -T\nprint 1;\n");
put('sh.cgi', "#!/bin/sh\necho\n");
put('env.cgi', "#! /usr/bin/env perl\nprint 1;\n");
put('env-python.cgi', "#!/usr/bin/env python3\nprint(1)\n");
put('elf.cgi', "\x7fELF\x02\x01");
put('sub/.kamado-cgi', "mode perlrun\nmode exec plain.cgi\n");
put('sub/plain.cgi', "print 1;\n");
put('sub/other.cgi', "print 1;\n");
put('sub/sh.cgi', "#!/bin/sh\necho\n");
my $files = Kamado::CGI::ModeFile->new(root => $root, modes => \@Kamado::CGI::Mode::NAMES);
sub mode_of { my ($file, $default) = @_; (Kamado::CGI::Mode->for("$root/$file", default => $default, mode_files => $files))[0] }

ok !defined &CORE::GLOBAL::exit, 'nothing overridden yet';
is mode_of('plain.cgi', 'fork'), 'Kamado::CGI::Mode::Fork', 'the default';
is mode_of('plain.cgi', 'exec'), 'Kamado::CGI::Mode::Exec', 'the default, exec';
is mode_of('sh.cgi', 'fork'), 'Kamado::CGI::Mode::Exec', 'another interpreter: exec';
is mode_of('env.cgi', 'fork'), 'Kamado::CGI::Mode::Fork', '#!/usr/bin/env perl is perl (Oddmuse\'s wiki.pl)';
is mode_of('env-python.cgi', 'fork'), 'Kamado::CGI::Mode::Exec', '#!/usr/bin/env python3 is not';
is mode_of('elf.cgi', 'fork'), 'Kamado::CGI::Mode::Exec', 'a program: exec';
is mode_of('taint.cgi', 'fork'), 'Kamado::CGI::Mode::Fork', '#! -T in fork mode: fork';
ok !defined &CORE::GLOBAL::exit && !$INC{'Kamado/CGI/InProcess/Run.pm'},
    'still nothing overridden: no in-process mode chosen';
is mode_of('taint.cgi', 'registry'), 'Kamado::CGI::Mode::Fork', '#! -T asked to run in-process: fork';
is mode_of('sh.cgi', 'perlrun'), 'Kamado::CGI::Mode::Exec', 'another interpreter asked to run in-process: exec';
ok !$INC{'Kamado/CGI/InProcess/Run.pm'}, 'not loaded while no script runs in-process';
is mode_of('w.cgi', 'registry'), 'Kamado::CGI::Mode::Registry', '#! -wl: in-process';
ok defined &CORE::GLOBAL::exit, 'the overrides installed once an in-process mode is chosen';
is mode_of('sub/other.cgi', 'fork'), 'Kamado::CGI::Mode::PerlRun', ".kamado-cgi's mode for its directory";
is mode_of('sub/plain.cgi', 'fork'), 'Kamado::CGI::Mode::Exec', ".kamado-cgi's mode for one script";
is mode_of('sub/sh.cgi', 'fork'), 'Kamado::CGI::Mode::Exec', '.kamado-cgi asks for perlrun, the interpreter is sh: exec';
put('sub/.kamado-cgi', "mode nonesuch\n");
my ($mode, $error) = Kamado::CGI::Mode->for("$root/sub/other.cgi", default => 'fork', mode_files => $files);
ok !defined $mode, 'a .kamado-cgi with an error: no mode';
like $error, qr/\Q$root\E\/sub\/\.kamado-cgi/, '... and an error naming the file';
is Kamado::CGI::Mode::Registry->NAME, 'registry', 'a mode module knows its name';
done_testing;
